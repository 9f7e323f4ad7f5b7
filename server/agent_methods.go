package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentls/agentls/wire"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent"
)

// runParams are agent/run's params and agentls.run's argument.
type runParams = wire.RunParams

// runRequest turns run params into the agent's request. Without a prompt
// it takes the selection, an `agent:` directive on the line, or, with
// diagnostics, a request to fix them.
func (s *Server) runRequest(p runParams) (agent.RunRequest, int, error) {
	req := agent.RunRequest{Prompt: strings.TrimSpace(p.Prompt), SessionID: p.SessionID, Diagnostics: p.Diagnostics}
	var doc document
	var open bool
	if p.TextDocument != nil && p.TextDocument.URI != "" {
		doc, open = s.docs.get(p.TextDocument.URI)
		if path, ok := uriToPath(p.TextDocument.URI); ok {
			req.Document = path
		}
	}
	line := 0
	if p.Range != nil {
		line = p.Range.Start.Line
		req.Range = &agent.Range{StartLine: p.Range.Start.Line, StartChar: p.Range.Start.Character,
			EndLine: p.Range.End.Line, EndChar: p.Range.End.Character}
	}
	if req.Prompt == "" && open && p.Range != nil {
		if sel := strings.TrimSpace(textInRange(doc.text, *p.Range)); sel != "" {
			req.Prompt = sel
		} else if d, ok := directive(lineText(doc.text, p.Range.Start.Line)); ok {
			req.Prompt = d
		}
	}
	if req.Prompt == "" && len(p.Diagnostics) > 0 {
		req.Prompt = fixPrompt(p.Diagnostics)
	}
	if req.Prompt == "" {
		return req, 0, jsonrpc2.Errorf(jsonrpc2.InvalidParams,
			"agentls: nothing to run: give a prompt, select text, or put an `agent:` directive on the line (e.g. `// agent: add error handling`)")
	}
	return req, line, nil
}

// directive finds an `agent:` directive in a line ("// agent: add tests").
func directive(line string) (string, bool) {
	i := strings.Index(line, "agent:")
	if i < 0 {
		return "", false
	}
	if i > 0 {
		// "myagent:" is not a directive; a comment marker or space before is.
		c := line[i-1]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
			return "", false
		}
	}
	d := strings.TrimSpace(line[i+len("agent:"):])
	d = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(d, "*/"), "-->"))
	return d, d != ""
}

// fixPrompt asks to fix the diagnostics the client sent.
func fixPrompt(diags []json.RawMessage) string {
	var msgs []string
	for _, raw := range diags {
		var d struct {
			Message string `json:"message"`
			Range   lspRange
		}
		if json.Unmarshal(raw, &d) == nil && d.Message != "" {
			msgs = append(msgs, fmt.Sprintf("line %d: %s", d.Range.Start.Line+1, firstLine(d.Message)))
		}
	}
	return "Fix these diagnostics:\n" + strings.Join(msgs, "\n")
}

// agentRun runs one turn and answers when it ends. $/cancelRequest (or the
// connection closing) cancels its task; it still answers, with the
// cancelled result.
func (s *Server) agentRun(ctx context.Context, params json.RawMessage) (any, error) {
	var p runParams
	if err := decodeParams(params, &p); err != nil {
		return nil, invalidParams("agent/run", err, `{"prompt": "...", "sessionId"?, "textDocument"?: {"uri"}, "range"?, "diagnostics"?}`)
	}
	req, line, err := s.runRequest(p)
	if err != nil {
		return nil, err
	}
	task, sent, err := s.startTask(req, line)
	if err != nil {
		return nil, err
	}
	select {
	case <-task.Done():
	case <-ctx.Done():
		core, _ := s.ensureCore()
		core.Cancel(task.ID)
		<-task.Done()
	}
	// Every event and the progress end go out before the result.
	select {
	case <-sent:
	case <-s.conn.Done():
	}
	return task.Result(), nil
}

type cancelParams = wire.CancelParams

func (s *Server) agentCancel(_ context.Context, params json.RawMessage) (any, error) {
	var p cancelParams
	if err := decodeParams(params, &p); err != nil || (p.TaskID == "" && p.SessionID == "") {
		if err == nil {
			err = errors.New("neither taskId nor sessionId given")
		}
		return nil, invalidParams("agent/cancel", err, `{"taskId": "t1"} or {"sessionId": "s1"}`)
	}
	core, err := s.ensureCore()
	if err != nil {
		return nil, err
	}
	if p.TaskID != "" {
		core.Cancel(p.TaskID) // false: already done, which is what was asked
	} else {
		core.CancelSession(p.SessionID)
	}
	return nil, nil
}

func (s *Server) agentTasks(context.Context, json.RawMessage) (any, error) {
	core, err := s.ensureCore()
	if err != nil {
		return nil, err
	}
	tasks := core.Tasks()
	if tasks == nil {
		tasks = []agent.TaskInfo{}
	}
	return map[string]any{"tasks": tasks}, nil
}

func (s *Server) agentNewChat(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, invalidParams("agent/newChat", err, `{"sessionId"?: "s1"}`)
	}
	core, err := s.ensureCore()
	if err != nil {
		return nil, err
	}
	return map[string]string{"sessionId": core.NewChat(p.SessionID)}, nil
}

func (s *Server) agentSessions(context.Context, json.RawMessage) (any, error) {
	core, err := s.ensureCore()
	if err != nil {
		return nil, err
	}
	sessions, err := core.Sessions()
	if err != nil {
		return nil, fmt.Errorf("agentls: listing sessions: %w", err)
	}
	if sessions == nil {
		sessions = []agent.SessionInfo{}
	}
	return map[string]any{"sessions": sessions}, nil
}

func (s *Server) mcpServers(context.Context, json.RawMessage) (any, error) {
	core, err := s.ensureCore()
	if err != nil {
		return nil, err
	}
	return map[string]any{"servers": serverRowsWire(core.ServerList())}, nil
}

type serverParams = wire.ServerParams

// mcpTrust shows the launch card through the approval paths and starts the
// server on consent.
func (s *Server) mcpTrust(ctx context.Context, params json.RawMessage) (any, error) {
	var p serverParams
	if err := decodeParams(params, &p); err != nil || p.Server == "" {
		return nil, invalidParams("agent/mcp/trust", errOr(err, "server is missing"), `{"server": "name"}`)
	}
	core, err := s.ensureCore()
	if err != nil {
		return nil, err
	}
	state, err := core.TrustServer(ctx, p.Server, s.approver(""))
	if err != nil {
		return nil, err
	}
	return map[string]wire.ServerState{"state": state}, nil
}

func (s *Server) mcpRevoke(_ context.Context, params json.RawMessage) (any, error) {
	var p serverParams
	if err := decodeParams(params, &p); err != nil || (p.Server == "" && !p.All) {
		return nil, invalidParams("agent/mcp/revoke", errOr(err, "neither server nor all given"), `{"server": "name"} or {"all": true}`)
	}
	core, err := s.ensureCore()
	if err != nil {
		return nil, err
	}
	name := p.Server
	if p.All {
		name = ""
	}
	revoked, err := core.RevokeServer(name)
	if err != nil {
		return nil, err
	}
	if revoked == nil {
		revoked = []string{}
	}
	return map[string]any{"revoked": revoked}, nil
}

func (s *Server) mcpRestart(ctx context.Context, params json.RawMessage) (any, error) {
	var p serverParams
	if err := decodeParams(params, &p); err != nil || p.Server == "" {
		return nil, invalidParams("agent/mcp/restart", errOr(err, "server is missing"), `{"server": "name"}`)
	}
	core, err := s.ensureCore()
	if err != nil {
		return nil, err
	}
	state, err := core.RestartServer(ctx, p.Server)
	if err != nil {
		return nil, err
	}
	return map[string]wire.ServerState{"state": state}, nil
}

func errOr(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}
