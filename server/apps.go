package server

import (
	"context"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/wire"
)

// mcpApp answers agent/mcp/app: the HTML of the MCP App a tool result
// named, for a client that shows Apps (experimental.agentls.apps).
func (s *Server) mcpApp(ctx context.Context, p wire.AppParams) (wire.AppResult, error) {
	if p.Server == "" || p.ResourceURI == "" {
		return wire.AppResult{}, badParams("server and resourceUri are required: the ui of a tool_result event")
	}
	core, err := s.ensureCore()
	if err != nil {
		return wire.AppResult{}, err
	}
	return core.App(ctx, p)
}

// mcpAppCall answers agent/mcp/appCall: a tools/call an App made, run
// through the core's gate with this connection's cards.
func (s *Server) mcpAppCall(ctx context.Context, p wire.AppCallParams) (wire.AppCallResult, error) {
	if p.Server == "" || p.ResourceURI == "" || p.Tool == "" || p.SessionID == "" {
		return wire.AppCallResult{}, badParams("sessionId, server, resourceUri and tool are required")
	}
	core, err := s.ensureCore()
	if err != nil {
		return wire.AppCallResult{}, err
	}
	return core.AppCall(ctx, p, agent.TaskIO{Approver: s.approver(""), Workspace: &workspace{s: s}}), nil
}
