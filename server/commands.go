package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/wire"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

type executeCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

// executeCommand runs docs/protocol.md section 5's commands. Each returns at
// once (Helix gives up on a request after 20 s); tasks and launch cards go
// on in the background.
func (s *Server) executeCommand(ctx context.Context, params json.RawMessage) (any, error) {
	var p executeCommandParams
	if err := decodeParams(params, &p); err != nil {
		return nil, invalidParams("workspace/executeCommand", err, "ExecuteCommandParams")
	}
	arg := func(i int, v any) error {
		if i >= len(p.Arguments) || string(p.Arguments[i]) == "null" {
			return nil
		}
		if err := json.Unmarshal(p.Arguments[i], v); err != nil {
			return invalidParams(p.Command, fmt.Errorf("argument %d: %w", i+1, err), commandUsage[p.Command])
		}
		return nil
	}
	switch p.Command {
	case "agentls.run":
		var rp runParams
		if err := arg(0, &rp); err != nil {
			return nil, err
		}
		return s.cmdRun(rp)
	case "agentls.prompt":
		var pp promptArg
		if err := arg(0, &pp); err != nil {
			return nil, err
		}
		return s.cmdPrompt(pp)
	case "agentls.cancel":
		var id string
		if err := arg(0, &id); err != nil {
			return nil, err
		}
		return s.cmdCancel(id)
	case "agentls.approve", "agentls.deny":
		var id, opt string
		if err := arg(0, &id); err != nil {
			return nil, err
		}
		if p.Command == "agentls.approve" {
			if err := arg(1, &opt); err != nil {
				return nil, err
			}
			if opt == "" {
				opt = string(wire.OptionAllowOnce)
			}
		}
		return nil, s.approvals.resolve(id, opt)
	case "agentls.newChat":
		core, err := s.ensureCore()
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		old := s.cmdSession
		s.mu.Unlock()
		id := core.NewChat(old)
		s.mu.Lock()
		s.cmdSession = id
		s.mu.Unlock()
		return wire.SessionResult{SessionID: id}, nil
	case "agentls.transcript":
		var sid string
		if err := arg(0, &sid); err != nil {
			return nil, err
		}
		return s.cmdTranscript(sid)
	case "agentls.compact":
		var sid string
		if err := arg(0, &sid); err != nil {
			return nil, err
		}
		return s.cmdCompact(sid)
	case "agentls.mcp.list":
		return s.cmdMCPList()
	case "agentls.mcp.trust":
		var name string
		if err := arg(0, &name); err != nil {
			return nil, err
		}
		return s.cmdMCPTrust(name)
	case "agentls.mcp.login":
		var name string
		if err := arg(0, &name); err != nil {
			return nil, err
		}
		return s.cmdMCPLogin(name)
	case "agentls.mcp.revoke":
		var name string
		if err := arg(0, &name); err != nil {
			return nil, err
		}
		res, err := s.mcpRevoke(ctx, serverParams{Server: name, All: name == ""})
		if err != nil {
			return nil, err
		}
		return res, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls: unknown command %q (expected one of %v)", p.Command, commandNames)
}

// commandUsage says what each command's arguments look like.
var commandUsage = map[string]string{
	"agentls.run":        `[{"prompt"?, "textDocument"?: {"uri"}, "range"?, "diagnostics"?}]`,
	"agentls.prompt":     `[{"server", "prompt", "arguments"?: {"name": "value"}, "sessionId"?}]`,
	"agentls.cancel":     `[taskId?]`,
	"agentls.approve":    `[approvalId?, optionId?]`,
	"agentls.deny":       `[approvalId?]`,
	"agentls.transcript": `[sessionId?]`,
	"agentls.compact":    `[sessionId?]`,
	"agentls.mcp.trust":  `[server]`,
	"agentls.mcp.login":  `[server]`,
	"agentls.mcp.revoke": `[server?]`,
}

// cmdRun starts a task in the background, continuing the command session,
// and shows a one-line summary when it ends.
func (s *Server) cmdRun(p runParams) (any, error) {
	if p.SessionID == "" {
		s.mu.Lock()
		p.SessionID = s.cmdSession
		s.mu.Unlock()
	}
	req, line, err := s.runRequest(p)
	if err != nil {
		return nil, err
	}
	return s.runInBackground(req, line)
}

// runInBackground starts a task of the command session and shows a
// one-line summary when it ends.
func (s *Server) runInBackground(req agent.RunRequest, line int) (any, error) {
	task, progressDone, err := s.startTask(req, line)
	if err != nil {
		return nil, err
	}
	s.goFn(func() {
		<-progressDone
		r := task.Result()
		if r.SessionID != "" {
			s.mu.Lock()
			s.cmdSession = r.SessionID
			s.mu.Unlock()
		}
		typ := logInfo
		switch r.StopReason {
		case wire.StopError:
			typ = logError
		case wire.StopMaxTokens, wire.StopRefusal:
			typ = logWarning // the task stopped short of an answer: say so visibly
		}
		s.showMessage(typ, "agentls: "+resultLine(r))
	})
	return wire.TaskStarted{TaskID: task.ID}, nil
}

// promptArg is agentls.prompt's argument.
type promptArg struct {
	Server    string            `json:"server"`
	Prompt    string            `json:"prompt"`
	Arguments map[string]string `json:"arguments,omitempty"`
	SessionID string            `json:"sessionId,omitempty"`
}

// cmdPrompt runs an MCP server's prompt as a task, continuing the command
// session: the prompt's messages become the user's turn. A prompt that is
// not listed, or arguments it does not take, fail the command at once; the
// task gets the prompt under the server's policy.
func (s *Server) cmdPrompt(p promptArg) (any, error) {
	if p.Server == "" || p.Prompt == "" {
		return nil, invalidParams("agentls.prompt", fmt.Errorf("server and prompt are both required"), commandUsage["agentls.prompt"])
	}
	core, err := s.ensureCore()
	if err != nil {
		return nil, err
	}
	ref := agent.PromptRef{Server: p.Server, Name: p.Prompt, Arguments: p.Arguments}
	if err := core.CheckPrompt(ref); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls: %v", err)
	}
	if p.SessionID == "" {
		s.mu.Lock()
		p.SessionID = s.cmdSession
		s.mu.Unlock()
	}
	return s.runInBackground(agent.RunRequest{SessionID: p.SessionID, MCPPrompt: &ref}, 0)
}

func (s *Server) cmdCancel(taskID string) (any, error) {
	core, err := s.ensureCore()
	if err != nil {
		return nil, err
	}
	if taskID == "" {
		latest, ok := s.latestTask()
		if !ok {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls: no task is running")
		}
		taskID = latest.TaskID
	}
	core.Cancel(taskID)
	return nil, nil
}

// cmdTranscript opens a session's transcript (the command session, else
// the newest) with window/showDocument where the client can; the path is
// in the result either way.
func (s *Server) cmdTranscript(sid string) (any, error) {
	core, err := s.ensureCore()
	if err != nil {
		return nil, err
	}
	if sid == "" {
		s.mu.Lock()
		sid = s.cmdSession
		s.mu.Unlock()
	}
	if sid == "" {
		sessions, err := core.Sessions()
		if err != nil {
			return nil, fmt.Errorf("agentls: listing sessions: %w", err)
		}
		if len(sessions) == 0 {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls: no session yet: run a task first")
		}
		sid = sessions[0].SessionID
	}
	path := core.TranscriptPath(sid)
	if path == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls: no transcript for session %q", sid)
	}
	if _, err := os.Stat(path); err != nil {
		// Opening a file that is not there shows an empty buffer, as if
		// the session had said nothing.
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls: no transcript for session %q (see agent/sessions for the sessions there are)", sid)
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
		err := protocol.Call(s.ctx, s.conn, "window/showDocument",
			&protocol.ShowDocumentParams{URI: protocol.URI(pathToURI(path)), TakeFocus: true}, &res)
		if err != nil || !res.Success {
			s.showMessage(logInfo, "agentls: "+path)
		}
	})
}

// cmdMCPList writes the server report under the state directory, opens it
// and returns the rows.
func (s *Server) cmdMCPList() (any, error) {
	core, err := s.ensureCore()
	if err != nil {
		return nil, err
	}
	rows := core.ServerList()
	dir := s.stateDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("agentls: create %s: %w", dir, err)
	}
	path := filepath.Join(dir, "mcp-servers.md")
	if err := os.WriteFile(path, []byte(serverReport(rows)), 0o600); err != nil {
		return nil, fmt.Errorf("agentls: write the server report: %w", err)
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
	return nil, "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls: no MCP server %q is configured", name)
}

// cmdMCPTrust shows the launch card in the background and returns the
// server's state now.
func (s *Server) cmdMCPTrust(name string) (any, error) {
	if name == "" {
		return nil, invalidParams("agentls.mcp.trust", fmt.Errorf("server is missing"), commandUsage["agentls.mcp.trust"])
	}
	core, state, err := s.configuredServer(name)
	if err != nil {
		return nil, err
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
func (s *Server) cmdMCPLogin(name string) (any, error) {
	if name == "" {
		return nil, invalidParams("agentls.mcp.login", fmt.Errorf("server is missing"), commandUsage["agentls.mcp.login"])
	}
	core, state, err := s.configuredServer(name)
	if err != nil {
		return nil, err
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
