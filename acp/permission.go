package acp

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentls/agentls/wire"
)

// permissions is a session's agent.Approver: every gate of the core (MCP
// call, command, write, server launch) becomes session/request_permission
// with the card's options, kinds unchanged. What the options mean ("always"
// bound to one tool's definition) is decided by the core, as for the LSP
// front. No answer, an error or a cancelled outcome is a denial.
type permissions struct {
	s *session

	mu    sync.Mutex
	diffs map[string]*wire.FileDiff // tool call id -> the diff its write approval showed
	// calls holds each running call's first tool_call (title, kind,
	// rawInput, locations), repeated in its permission request: many
	// editors draw the card from params.toolCall alone.
	calls map[string]toolCall
}

func (s *session) approver() *permissions {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.perms == nil {
		s.perms = &permissions{s: s, diffs: map[string]*wire.FileDiff{}, calls: map[string]toolCall{}}
	}
	return s.perms
}

// RequestApproval asks the editor (agent.Approver).
func (p *permissions) RequestApproval(ctx context.Context, ap wire.Approval) (string, error) {
	tc := p.call(ap.ToolCallID)
	tc.Status = StatusPending
	launch := ap.ToolCallID == ""
	if launch {
		// A launch card gates no tool call of the model: it gets its own,
		// so the editor has something to show the question on.
		tc = toolCall{ToolCallID: "launch-" + ap.ApprovalID, Title: ap.Title, Kind: string(wire.KindExecute), Status: StatusPending}
		p.s.send(sessionUpdate{SessionUpdate: updateToolCall, ToolCall: &tc})
		tc = toolCall{ToolCallID: tc.ToolCallID}
	}
	if ap.Diff != nil {
		p.mu.Lock()
		p.diffs[ap.ToolCallID] = ap.Diff
		p.mu.Unlock()
		tc.Content = []toolCallContent{diffContent(ap.Diff)}
	} else {
		detail := textBlock(ap.Detail)
		tc.Content = []toolCallContent{{Type: "content", Content: &detail}}
	}
	req := requestPermissionRequest{SessionID: p.s.id, ToolCall: tc}
	for _, o := range ap.Options {
		req.Options = append(req.Options, permissionOption{OptionID: o.OptionID, Name: o.Name, Kind: string(o.Kind)})
	}
	var resp requestPermissionResponse
	err := p.s.a.call(ctx, methodRequestPermission, req, &resp)
	optionID := ""
	if err == nil && resp.Outcome.Outcome == outcomeSelected {
		optionID = resp.Outcome.OptionID
	} else if err == nil && resp.Outcome.Outcome != outcomeCancelled {
		err = fmt.Errorf("acp: session/request_permission: unknown outcome %q (expected selected or cancelled)", resp.Outcome.Outcome)
	}
	if launch {
		st := StatusFailed
		if allows(ap, optionID) {
			st = StatusCompleted
		}
		p.s.send(sessionUpdate{SessionUpdate: updateToolCallUpdate, ToolCall: &toolCall{ToolCallID: "launch-" + ap.ApprovalID, Status: st}})
	}
	return optionID, err
}

// allows reports whether optionID is an allow option of ap.
func allows(ap wire.Approval, optionID string) bool {
	for _, o := range ap.Options {
		if o.OptionID == optionID && optionID != "" {
			return o.Kind == wire.OptionAllowOnce || o.Kind == wire.OptionAllowAlways
		}
	}
	return false
}

// note keeps what a live call's first tool_call says of it, until the
// call's tool_result. It runs as the core emits the event, so the call is
// known before its approval is asked.
func (p *permissions) note(e wire.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Type {
	case wire.EventToolCall:
		if _, seen := p.calls[e.ToolCallID]; !seen {
			p.calls[e.ToolCallID] = announced(e)
		}
	case wire.EventToolResult:
		delete(p.calls, e.ToolCallID)
	}
}

// call is the permission request's toolCall for the call id: what its
// first tool_call said, or the id alone for a call not announced.
func (p *permissions) call(id string) toolCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	if tc, ok := p.calls[id]; ok && id != "" {
		return tc
	}
	return toolCall{ToolCallID: id}
}

func (p *permissions) diffFor(id string) *wire.FileDiff {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.diffs[id]
}
