package agent

import (
	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// Replay is a stored session as the events a front shows for it, oldest
// first: each user prompt (EventPrompt, Text), the assistant's reasoning
// and text (one "reasoning" and one "text" event per block, Delta), and every tool call as its first
// tool_call (redacted arguments, kind, files) then its final tool_call and
// tool_result, in the order a live turn emits them. Tool results carry their
// capped, redacted preview; the final status is completed or failed (the
// history does not keep whether a failure was a denial). Seq, TaskID and
// SessionID are left for the caller. An unknown session is empty. When
// loading repaired the session (lines set aside), a status event saying so
// comes first.
func (c *Core) Replay(sessionID string) ([]wire.Event, error) {
	if err := session.CheckID(sessionID); err != nil {
		return nil, err
	}
	recovered := ""
	if unlock, ok := c.trySessionLock(sessionID); ok {
		// A turn that never ended is stored before it is shown; a turn
		// running here now is not one (it holds the session).
		recovered = c.sessions.RecoverTurn(sessionID)
		unlock()
	}
	msgs, note, err := c.sessions.Load(sessionID)
	if err != nil {
		return nil, err
	}
	var out []wire.Event
	for _, n := range []string{recovered, note} {
		if n != "" {
			// What the repair set aside or recovered is part of what the
			// user must see, as a live task shows it.
			out = append(out, wire.Event{Type: wire.EventStatus, Message: n})
		}
	}
	type use struct {
		name string
		args []byte // redacted
	}
	calls := map[string]use{} // tool_use id -> its tool and arguments
	for _, m := range msgs {
		for _, b := range m.Content {
			switch {
			case b.Type == "text" && m.Role == "user":
				out = append(out, wire.Event{Type: wire.EventPrompt, Text: b.Text})
			case b.Type == "text":
				out = append(out, wire.Event{Type: wire.EventText, Delta: trust.Redact(b.Text)})
			case b.Type == "thinking" && b.Thinking != "":
				out = append(out, wire.Event{Type: wire.EventReasoning, Delta: trust.Redact(b.Thinking)})
			case b.Type == "tool_use":
				args := trust.RedactJSON(b.Input)
				calls[b.ID] = use{b.Name, args}
				kind, locations := replayPlan(c.root, b)
				out = append(out, wire.Event{Type: wire.EventToolCall, ToolCallID: b.ID, Tool: b.Name, Title: b.Name,
					Arguments: args, Status: wire.StatusPending, Kind: kind, Locations: locations})
			case b.Type == "tool_result":
				status := wire.StatusCompleted
				if b.IsError {
					status = wire.StatusFailed
				}
				u := calls[b.ToolUseID]
				out = append(out,
					wire.Event{Type: wire.EventToolCall, ToolCallID: b.ToolUseID, Tool: u.name, Title: u.name, Status: status, Arguments: u.args},
					wire.Event{Type: wire.EventToolResult, ToolCallID: b.ToolUseID, Status: status, IsError: b.IsError,
						Output: trust.Redact(tools.CapText(b.Content, previewMax)), Images: wireImages(b.Images)})
			}
		}
		if m.Role == "assistant" && m.Interrupted != "" {
			out = append(out, wire.Event{Type: wire.EventStatus, Message: session.InterruptedStatus(m)})
		}
	}
	return out, nil
}

// ServersAwaitingLaunch are the untrusted servers (workspace or editor
// tier) that wait for launch consent: new, or changed since it was given.
// A front asks for each through TrustServer.
func (c *Core) ServersAwaitingLaunch() []string {
	if c.reg == nil {
		return nil
	}
	var names []string
	for _, s := range c.reg.Servers() {
		if s.Origin != config.User && (s.State == mcp.NeedsApproval || s.State == mcp.ApprovalStale) {
			names = append(names, s.Name)
		}
	}
	return names
}

// Root is the workspace folder this Core serves.
func (c *Core) Root() string { return c.root }

// replayPlan is the kind and locations of a stored tool_use, as its built-in
// would plan it in a workspace at root; an MCP call is KindOther with none.
func replayPlan(root string, u model.Block) (wire.ToolKind, []string) {
	t, ok := tools.Builtin(u.Name)
	if !ok {
		return wire.KindOther, nil
	}
	p := t.Plan(&tools.Env{Workspace: DiskWorkspace(root)}, u.Input)
	return p.Kind, p.Locations
}
