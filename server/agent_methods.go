package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/agent/prompt"
	"github.com/agentls/agentls/wire"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/jsonrpc"
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
		req.Range = &prompt.Range{StartLine: p.Range.Start.Line, StartChar: p.Range.Start.Character,
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
		return req, 0, jsonrpc.Errorf(jsonrpc.InvalidParams,
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
func (s *Server) agentRun(ctx context.Context, p wire.RunParams) (wire.RunResult, error) {
	req, line, err := s.runRequest(p)
	if err != nil {
		return wire.RunResult{}, err
	}
	task, sent, err := s.startTask(req, line)
	if err != nil {
		return wire.RunResult{}, err
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

func (s *Server) agentCancel(_ context.Context, p wire.CancelParams) (wire.Null, error) {
	if p.TaskID == "" && p.SessionID == "" {
		return wire.Null{}, badParams("neither taskId nor sessionId given")
	}
	core, err := s.ensureCore()
	if err != nil {
		return wire.Null{}, err
	}
	if p.TaskID != "" {
		core.Cancel(p.TaskID) // false: already done, which is what was asked
	} else {
		core.CancelSession(p.SessionID)
	}
	return wire.Null{}, nil
}

func (s *Server) agentTasks(context.Context, wire.NoParams) (wire.TasksResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.TasksResult{}, err
	}
	tasks := core.Tasks()
	if tasks == nil {
		tasks = []wire.TaskInfo{}
	}
	return wire.TasksResult{Tasks: tasks}, nil
}

func (s *Server) agentNewChat(_ context.Context, p wire.NewChatParams) (wire.NewChatResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.NewChatResult{}, err
	}
	return wire.NewChatResult{SessionID: core.NewChat(p.SessionID)}, nil
}

func (s *Server) agentSessions(context.Context, wire.NoParams) (wire.SessionsResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.SessionsResult{}, err
	}
	sessions, err := core.Sessions()
	if err != nil {
		return wire.SessionsResult{}, fmt.Errorf("agentls: listing sessions: %w", err)
	}
	if sessions == nil {
		sessions = []wire.SessionInfo{}
	}
	return wire.SessionsResult{Sessions: sessions}, nil
}

// agentPinSession pins or unpins a stored session ([sessions] retention
// never deletes a pinned one).
func (s *Server) agentPinSession(_ context.Context, p wire.PinSessionParams) (wire.Null, error) {
	if p.SessionID == "" {
		return wire.Null{}, badParams("no sessionId given")
	}
	core, err := s.ensureCore()
	if err != nil {
		return wire.Null{}, err
	}
	if _, err := core.SessionExists(p.SessionID); err != nil {
		return wire.Null{}, badParams(err.Error())
	}
	return wire.Null{}, core.PinSession(p.SessionID, p.Pinned)
}

// mcpTrust shows the launch card through the approval paths and starts the
// server on consent.
func (s *Server) mcpTrust(ctx context.Context, p wire.ServerParams) (wire.ServerStateResult, error) {
	if p.Server == "" {
		return wire.ServerStateResult{}, badParams("server is missing")
	}
	core, err := s.ensureCore()
	if err != nil {
		return wire.ServerStateResult{}, err
	}
	state, err := core.TrustServer(ctx, p.Server, s.approver(""))
	if err != nil {
		return wire.ServerStateResult{}, err
	}
	return wire.ServerStateResult{State: state}, nil
}

func (s *Server) mcpRevoke(_ context.Context, p wire.RevokeParams) (wire.RevokeResult, error) {
	if p.Server == "" && !p.All {
		return wire.RevokeResult{}, badParams("neither server nor all given")
	}
	core, err := s.ensureCore()
	if err != nil {
		return wire.RevokeResult{}, err
	}
	name := p.Server
	if p.All {
		name = ""
	}
	revoked, err := core.RevokeServer(name)
	if err != nil {
		return wire.RevokeResult{}, err
	}
	if revoked == nil {
		revoked = []string{}
	}
	return wire.RevokeResult{Revoked: revoked}, nil
}

func (s *Server) mcpRestart(ctx context.Context, p wire.ServerParams) (wire.ServerStateResult, error) {
	if p.Server == "" {
		return wire.ServerStateResult{}, badParams("server is missing")
	}
	core, err := s.ensureCore()
	if err != nil {
		return wire.ServerStateResult{}, err
	}
	state, err := core.RestartServer(ctx, p.Server)
	if err != nil {
		return wire.ServerStateResult{}, err
	}
	return wire.ServerStateResult{State: state}, nil
}

// agentReplay answers a stored session as the events a client shows for
// it (a chat view reopening a conversation), as ACP's session/load
// replays it.
func (s *Server) agentReplay(_ context.Context, p wire.ReplayParams) (wire.ReplayResult, error) {
	if p.SessionID == "" {
		return wire.ReplayResult{}, badParams("no sessionId given")
	}
	core, err := s.ensureCore()
	if err != nil {
		return wire.ReplayResult{}, err
	}
	if _, err := core.SessionExists(p.SessionID); err != nil {
		return wire.ReplayResult{}, badParams(err.Error())
	}
	events, err := core.Replay(p.SessionID)
	if err != nil {
		return wire.ReplayResult{}, fmt.Errorf("agentls: replaying session %s: %w", p.SessionID, err)
	}
	out := make([]any, 0, len(events))
	for i, e := range events {
		e.SessionID, e.Seq = p.SessionID, i+1
		out = append(out, wire.EventParams(e))
	}
	return wire.ReplayResult{SessionID: p.SessionID, Events: out}, nil
}

// agentStatus answers the model the next turn talks to and the mode its
// gates decide in, for a client's indicator. It never builds the model
// nor reaches its server.
func (s *Server) agentStatus(_ context.Context, p wire.StatusParams) (wire.StatusResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.StatusResult{}, err
	}
	return core.Status(p.SessionID), nil
}

// agentSetMode sets a session's mode (or the mode of sessions not set
// since); the client's status line shows it, and every status and done
// event carries it.
func (s *Server) agentSetMode(_ context.Context, p wire.SetModeParams) (wire.ModeResult, error) {
	if p.Mode == "" {
		return wire.ModeResult{}, badParams("mode is missing: expected one of plan, ask, auto-edit, autopilot")
	}
	core, err := s.ensureCore()
	if err != nil {
		return wire.ModeResult{}, err
	}
	if err := core.SetMode(p.SessionID, p.Mode); err != nil {
		return wire.ModeResult{}, badParams(err.Error())
	}
	return wire.ModeResult{SessionID: p.SessionID, Mode: core.Mode(p.SessionID)}, nil
}

// agentSetModel switches a session's model profile for its next turn (or
// the profile of sessions not set since); every status and done event
// carries the session's profile and model.
func (s *Server) agentSetModel(_ context.Context, p wire.SetModelParams) (wire.ModelResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.ModelResult{}, err
	}
	if p.Profile == "" {
		return wire.ModelResult{}, badParams(fmt.Sprintf("profile is missing: expected one of %q", core.ProfileNames()))
	}
	if err := core.SetModel(p.SessionID, p.Profile); err != nil {
		return wire.ModelResult{}, badParams(err.Error())
	}
	return wire.ModelResult{SessionID: p.SessionID, Model: core.ModelOf(p.SessionID)}, nil
}

// agentRules lists the saved rules of the editor's workspace folders.
func (s *Server) agentRules(context.Context, wire.NoParams) (wire.RulesResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.RulesResult{}, err
	}
	rules, err := core.Rules((&workspace{s: s}).Folders())
	if err != nil {
		return wire.RulesResult{}, err
	}
	return wire.RulesResult{Rules: rules}, nil
}

// agentRevokeRule forgets a saved rule of the editor's workspace folders.
func (s *Server) agentRevokeRule(_ context.Context, p wire.RevokeRuleParams) (wire.RevokeRuleResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.RevokeRuleResult{}, err
	}
	revoked, err := core.RevokeRule((&workspace{s: s}).Folders(), p.ID, p.Workspace)
	if err != nil {
		return wire.RevokeRuleResult{}, badParams(err.Error())
	}
	return wire.RevokeRuleResult{Revoked: revoked}, nil
}
