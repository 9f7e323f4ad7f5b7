package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/jsonrpc"
	"github.com/agentls/agentls/wire"

	"go.lsp.dev/protocol"
)

type executeCommandParams struct {
	Command   string          `json:"command"`
	Arguments json.RawMessage `json:"arguments"`
}

// executeCommand runs docs/protocol.md section 5's commands, the agentls.*
// commands package wire declares (routes.go binds each to its handler).
// Each returns at once (Helix gives up on a request after 20 s); tasks and
// launch cards go on in the background.
func (s *Server) executeCommand(ctx context.Context, p executeCommandParams) (any, error) {
	h, ok := s.commands[p.Command]
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: unknown command %q (expected one of %v)", p.Command, commandNames)
	}
	return h(ctx, p.Arguments)
}

// commandNames are every command of docs/protocol.md section 5, as package
// wire declares them; Neovim only executes commands listed in
// executeCommandProvider.
var commandNames = func() []string {
	var names []string
	for _, m := range wire.MethodsOf(wire.CommandRequest) {
		names = append(names, m.Name)
	}
	return names
}()

// cmdRun starts a task in the background, continuing the command session,
// and shows a one-line summary when it ends.
func (s *Server) cmdRun(_ context.Context, a wire.RunArgs) (wire.TaskStarted, error) {
	p := a.Run
	if p.SessionID == "" {
		s.mu.Lock()
		p.SessionID = s.cmdSession
		s.mu.Unlock()
	}
	if p.SessionID == "" {
		p.SessionID = s.joinLiveChat()
	}
	req, line, err := s.runRequest(p)
	if err != nil {
		return wire.TaskStarted{}, err
	}
	return s.runInBackground(req, line)
}

// runInBackground starts a task of the command session and shows a
// one-line summary when it ends.
func (s *Server) runInBackground(req agent.RunRequest, line int) (wire.TaskStarted, error) {
	task, progressDone, err := s.startTask(req, line)
	if err != nil {
		return wire.TaskStarted{}, err
	}
	s.goFn(func() {
		<-progressDone
		r := task.Result()
		if r.SessionID != "" {
			s.mu.Lock()
			s.cmdSession = r.SessionID
			core, editor := s.core, s.clientName
			s.mu.Unlock()
			if core != nil {
				if err := core.SetLive(r.SessionID, agent.FrontLSP, editor); err != nil {
					s.logMessage(logWarning, "agentls: recording the workspace's live session (for agentls chat to join): "+err.Error())
				}
			}
		}
		typ := logInfo
		switch r.StopReason {
		case wire.StopError:
			typ = logError
		case wire.StopMaxTokens, wire.StopRefusal:
			typ = logWarning // the task stopped short of an answer: say so visibly
		}
		s.showMessage(typ, "agentls: "+resultLine(r)+s.usageSummary(r))
	})
	return wire.TaskStarted{TaskID: task.ID}, nil
}

// cmdPrompt runs an MCP server's prompt as a task, continuing the command
// session: the prompt's messages become the user's turn. A prompt that is
// not listed, or arguments it does not take, fail the command at once; the
// task gets the prompt under the server's policy.
func (s *Server) cmdPrompt(_ context.Context, a wire.PromptArgs) (wire.TaskStarted, error) {
	p := a.Prompt
	if p.Server == "" || p.Prompt == "" {
		return wire.TaskStarted{}, badParams("server and prompt are both required")
	}
	core, err := s.ensureCore()
	if err != nil {
		return wire.TaskStarted{}, err
	}
	ref := agent.PromptRef{Server: p.Server, Name: p.Prompt, Arguments: p.Arguments}
	if err := core.CheckPrompt(ref); err != nil {
		return wire.TaskStarted{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: %v", err)
	}
	if p.SessionID == "" {
		s.mu.Lock()
		p.SessionID = s.cmdSession
		s.mu.Unlock()
	}
	return s.runInBackground(agent.RunRequest{SessionID: p.SessionID, MCPPrompt: &ref}, 0)
}

// cmdCancel is agentls.cancel [taskId?]: the latest task when absent.
func (s *Server) cmdCancel(_ context.Context, a wire.TaskArgs) (wire.Null, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.Null{}, err
	}
	taskID := a.TaskID
	if taskID == "" {
		latest, ok := s.latestTask()
		if !ok {
			return wire.Null{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: no task is running")
		}
		taskID = latest.TaskID
	}
	core.Cancel(taskID)
	return wire.Null{}, nil
}

// cmdApprove is agentls.approve [approvalId?, optionId?]: the oldest
// waiting approval, allow_once, when absent.
func (s *Server) cmdApprove(_ context.Context, a wire.ApproveArgs) (wire.Null, error) {
	opt := a.OptionID
	if opt == "" {
		opt = string(wire.OptionAllowOnce)
	}
	return wire.Null{}, s.approvals.resolve(a.ApprovalID, opt)
}

// cmdDeny is agentls.deny [approvalId?]: the oldest waiting when absent.
func (s *Server) cmdDeny(_ context.Context, a wire.ApprovalArgs) (wire.Null, error) {
	return wire.Null{}, s.approvals.resolve(a.ApprovalID, "")
}

// cmdNewChat is agentls.newChat: the commands' session starts empty.
func (s *Server) cmdNewChat(context.Context, wire.NoArgs) (wire.SessionResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.SessionResult{}, err
	}
	s.mu.Lock()
	old := s.cmdSession
	s.mu.Unlock()
	id := core.NewChat(old)
	s.mu.Lock()
	s.cmdSession = id
	s.mu.Unlock()
	return wire.SessionResult{SessionID: id}, nil
}

// cmdTranscript opens a session's transcript (the command session, else
// the newest) with window/showDocument where the client can; the path is
// in the result either way.
func (s *Server) cmdTranscript(_ context.Context, a wire.SessionArgs) (wire.TranscriptResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.TranscriptResult{}, err
	}
	sid := a.SessionID
	if sid == "" {
		s.mu.Lock()
		sid = s.cmdSession
		s.mu.Unlock()
	}
	if sid == "" {
		sessions, err := core.Sessions()
		if err != nil {
			return wire.TranscriptResult{}, fmt.Errorf("agentls: listing sessions: %w", err)
		}
		if len(sessions) == 0 {
			return wire.TranscriptResult{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: no session yet: run a task first")
		}
		sid = sessions[0].SessionID
	}
	path := core.TranscriptPath(sid)
	if path == "" {
		return wire.TranscriptResult{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: no transcript for session %q", sid)
	}
	if _, err := os.Stat(path); err != nil {
		// Opening a file that is not there shows an empty buffer, as if
		// the session had said nothing.
		return wire.TranscriptResult{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: no transcript for session %q (see agent/sessions for the sessions there are)", sid)
	}
	s.openDocument(path)
	return wire.TranscriptResult{SessionID: sid, Path: path, URI: pathToURI(path)}, nil
}

// openDocument asks the client to show a file, in the background (the
// command has already answered). Helix 24.03+ supports showDocument without
// announcing it, so it is tried always; a client that cannot (Neovim 0.7
// answers -32601) gets the path in a message.
func (s *Server) openDocument(path string) {
	s.goFn(func() {
		var res struct {
			Success bool `json:"success"`
		}
		err := s.conn.Call(s.ctx, "window/showDocument",
			&protocol.ShowDocumentParams{URI: protocol.URI(pathToURI(path)), TakeFocus: true}, &res)
		if err != nil || !res.Success {
			s.showMessage(logInfo, "agentls: "+path)
		}
	})
}

// cmdMCPList writes the server report under the state directory, opens it
// and returns the rows.
func (s *Server) cmdMCPList(context.Context, wire.NoArgs) (wire.MCPListResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.MCPListResult{}, err
	}
	rows := core.ServerList()
	dir := s.stateDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return wire.MCPListResult{}, fmt.Errorf("agentls: create %s: %w", dir, err)
	}
	path := filepath.Join(dir, "mcp-servers.md")
	if err := os.WriteFile(path, []byte(serverReport(rows)), 0o600); err != nil {
		return wire.MCPListResult{}, fmt.Errorf("agentls: write the server report: %w", err)
	}
	s.openDocument(path)
	return wire.MCPListResult{Servers: rows, Path: path}, nil
}

// configuredServer is the core and the state of the server named name,
// or an InvalidParams error when the config has no such server.
func (s *Server) configuredServer(name string) (*agent.Core, wire.ServerState, error) {
	core, err := s.ensureCore()
	if err != nil {
		return nil, "", err
	}
	for _, row := range core.ServerList() {
		if row.Name == name {
			return core, row.State, nil
		}
	}
	return nil, "", jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: no MCP server %q is configured", name)
}

// cmdMCPTrust shows the launch card in the background and returns the
// server's state now.
func (s *Server) cmdMCPTrust(_ context.Context, a wire.ServerArgs) (wire.ServerStateResult, error) {
	name := a.Server
	if name == "" {
		return wire.ServerStateResult{}, badParams("server is missing")
	}
	core, state, err := s.configuredServer(name)
	if err != nil {
		return wire.ServerStateResult{}, err
	}
	s.goFn(func() {
		st, err := core.TrustServer(s.ctx, name, s.approver(""))
		if err != nil {
			s.showMessage(logWarning, "agentls: MCP server '"+name+"' not started: "+err.Error())
			return
		}
		s.showMessage(logInfo, "agentls: MCP server '"+name+"': "+string(st))
	})
	return wire.ServerStateResult{State: state}, nil
}

// cmdMCPLogin runs a remote server's OAuth authorization in the background
// (the browser step through window/showDocument, or a message with the
// URL) and returns the server's state now; a message says how it ended.
func (s *Server) cmdMCPLogin(_ context.Context, a wire.ServerArgs) (wire.ServerStateResult, error) {
	name := a.Server
	if name == "" {
		return wire.ServerStateResult{}, badParams("server is missing")
	}
	core, state, err := s.configuredServer(name)
	if err != nil {
		return wire.ServerStateResult{}, err
	}
	s.goFn(func() {
		out, err := core.LoginServer(s.ctx, name, s.approver(""))
		switch {
		case err != nil:
			s.showMessage(logWarning, "agentls: MCP server '"+name+"': login failed: "+err.Error())
		case out.State == wire.ServerNeedsApproval || out.State == wire.ServerApprovalStale:
			s.showMessage(logWarning, "agentls: MCP server '"+name+"' comes from the workspace config and is not approved ("+string(out.State)+"): run agentls.mcp.trust first")
		case !out.TokenStored:
			s.showMessage(logInfo, "agentls: MCP server '"+name+"' connected without asking for authorization; no token was stored")
		default:
			s.showMessage(logInfo, "agentls: MCP server '"+name+"': logged in ("+string(out.State)+")")
		}
	})
	return wire.ServerStateResult{State: state}, nil
}

// cmdMCPRevoke is agentls.mcp.revoke [server?]: every remembered approval
// when absent.
func (s *Server) cmdMCPRevoke(ctx context.Context, a wire.RevokeArgs) (wire.RevokeResult, error) {
	return s.mcpRevoke(ctx, wire.RevokeParams{Server: a.Server, All: a.Server == ""})
}

// joinLiveChat is the session of an `agentls chat` running on this
// workspace, for a command task that has no session yet (the chat and
// Helix's code actions then share it), or "". The editor is told.
func (s *Server) joinLiveChat() string {
	core, err := s.ensureCore()
	if err != nil {
		return ""
	}
	l, ok := core.LiveSession(agent.FrontChat)
	if !ok {
		return ""
	}
	s.mu.Lock()
	if s.cmdSession != "" {
		id := s.cmdSession
		s.mu.Unlock()
		return id
	}
	s.cmdSession = l.SessionID
	s.mu.Unlock()
	s.logMessage(logInfo, "agentls: continuing session "+l.SessionID+" of the agentls chat running in this workspace (agentls.newChat starts another)")
	return l.SessionID
}

// cmdUsage is what the command session's tasks used and cost, summed as
// they end (the session's part of their summary line).
type cmdUsage struct {
	sessionID string
	usage     wire.Usage
	cost      *float64
}

// usageSummary is " · " and the task's tokens, cache share and cost, then
// its session's, for the summary line a command task ends with (what
// Helix shows in its status line); "" for a task that sent no request.
func (s *Server) usageSummary(r wire.RunResult) string {
	s.mu.Lock()
	core := s.core
	s.mu.Unlock()
	if core == nil || r.SessionID == "" || r.Usage.InputTokens+r.Usage.OutputTokens == 0 {
		return ""
	}
	cost := core.CostOf(r.SessionID, r.Usage)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmdUsage.sessionID != r.SessionID {
		s.cmdUsage = cmdUsage{sessionID: r.SessionID}
	}
	u := &s.cmdUsage
	u.usage.InputTokens += r.Usage.InputTokens
	u.usage.OutputTokens += r.Usage.OutputTokens
	u.usage.CacheReadTokens += r.Usage.CacheReadTokens
	u.usage.CacheWriteTokens += r.Usage.CacheWriteTokens
	if cost != nil {
		sum := *cost
		if u.cost != nil {
			sum += *u.cost
		}
		u.cost = &sum
	}
	return " · " + agent.UsageSummary(r.Usage, cost, u.usage, u.cost)
}
