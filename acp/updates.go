package acp

import (
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// toolStatuses maps the core's tool call statuses to ACP's: a call waiting
// for its approval is still pending; a denied or cancelled call failed.
var toolStatuses = map[wire.ToolStatus]ToolCallStatus{
	wire.StatusPending:          StatusPending,
	wire.StatusAwaitingApproval: StatusPending,
	wire.StatusRunning:          StatusInProgress,
	wire.StatusCompleted:        StatusCompleted,
	wire.StatusFailed:           StatusFailed,
	wire.StatusDenied:           StatusFailed,
	wire.StatusCancelled:        StatusFailed,
}

// translator turns one stream of the core's events (a live turn or a
// replay) into session/update. It is the only place this front reads
// events; the events themselves (kinds, files, diffs) are the core's.
type translator struct {
	// options are the session's config options with a mode (nil: the
	// mode's alone).
	options func(wire.Mode) []configOption
	diffs   diffSource
	status  map[string]ToolCallStatus // last status sent per tool call
	plan    planner                   // the plan the answer states (plan.go)
	mode    wire.Mode                 // the session's mode as last said; a status event carrying another says it changed
}

// diffSource gives the diff a write approval showed for a tool call.
type diffSource interface {
	diffFor(toolCallID string) *wire.FileDiff
}

func newTranslator(d diffSource) *translator {
	return &translator{diffs: d, status: map[string]ToolCallStatus{}}
}

// updates are the session/update notifications for e (often one, none for
// events ACP has no place for: approvals are requests, done is the prompt's
// response).
func (t *translator) updates(e wire.Event) []sessionUpdate {
	switch e.Type {
	case wire.EventPrompt:
		return chunk(updateUserMessage, e.Text)
	case wire.EventText:
		return append(chunk(updateAgentMessage, e.Delta), planUpdate(t.plan.add(e.Delta))...)
	case wire.EventReasoning:
		return chunk(updateAgentThought, e.Delta)
	case wire.EventStatus:
		if e.Mode != "" && t.mode != "" && e.Mode != t.mode {
			t.mode = e.Mode // an accepted plan: plan is ask now
			opts := []configOption{modeOption(e.Mode)}
			if t.options != nil {
				opts = t.options(e.Mode)
			}
			return modeUpdates(e.Mode, opts)
		}
		// A notice (a turn_end hook's output, a compaction, a retry): ACP
		// has no status line, so it comes as a thought of its own line,
		// apart from the answer.
		if e.Message != "" {
			return chunk(updateAgentThought, "\n"+e.Message+"\n")
		}
		return nil
	case wire.EventToolCall:
		if plan := planUpdate(t.plan.end()); plan != nil {
			return append(plan, t.updates(e)...)
		}
		st := toolStatuses[e.Status]
		last, seen := t.status[e.ToolCallID]
		t.status[e.ToolCallID] = st
		if !seen {
			tc := announced(e)
			tc.Status = st
			return []sessionUpdate{{SessionUpdate: updateToolCall, ToolCall: &tc}}
		}
		if st == StatusCompleted || st == StatusFailed {
			// A final status comes with the call's tool_result, right after.
			return nil
		}
		if e.Message != "" && e.Status == wire.StatusRunning {
			// Progress (an MCP server's notifications/progress, or the
			// status of the task it runs the call as) is the call's
			// content until its result replaces it.
			msg := textBlock(e.Message)
			return []sessionUpdate{{SessionUpdate: updateToolCallUpdate, ToolCall: &toolCall{ToolCallID: e.ToolCallID, Status: st,
				Content: []toolCallContent{{Type: "content", Content: &msg}}}}}
		}
		if st == last {
			return nil
		}
		return []sessionUpdate{{SessionUpdate: updateToolCallUpdate, ToolCall: &toolCall{ToolCallID: e.ToolCallID, Status: st}}}
	case wire.EventToolResult:
		st := toolStatuses[e.Status]
		t.status[e.ToolCallID] = st
		tc := &toolCall{ToolCallID: e.ToolCallID, Status: st}
		if d := t.diff(e.ToolCallID); d != nil && st == StatusCompleted {
			tc.Content = append(tc.Content, diffContent(d))
		}
		if e.Output != "" {
			out := textBlock(e.Output)
			tc.Content = append(tc.Content, toolCallContent{Type: "content", Content: &out})
		}
		for _, im := range e.Images {
			tc.Content = append(tc.Content, toolCallContent{Type: "content", Content: &contentBlock{Type: "image", MimeType: im.MIMEType, Data: im.Data}})
		}
		if e.UI != nil {
			// An ACP editor cannot show an MCP App: the call says so.
			note := textBlock(appNotShown(e.UI.ResourceURI))
			tc.Content = append(tc.Content, toolCallContent{Type: "content", Content: &note})
		}
		return []sessionUpdate{{SessionUpdate: updateToolCallUpdate, ToolCall: tc}}
	case "done":
		// The turn's last updates: the plan its answer's last line
		// finished, how full the window is, where known.
		ups := planUpdate(t.plan.end())
		if u := e.Usage; u != nil && u.ContextWindow > 0 {
			ups = append(ups, sessionUpdate{SessionUpdate: updateUsage, Usage: &usageUpdate{Used: u.ContextTokens, Size: u.ContextWindow}})
		}
		return ups
	}
	return nil
}

// announced is what a call's first tool_call says of it: its title, kind
// (other when the core named none), redacted arguments and the files it
// names. Its permission request repeats all of it (permissions.note).
func announced(e wire.Event) toolCall {
	kind := string(e.Kind)
	if kind == "" {
		kind = string(wire.KindOther)
	}
	tc := toolCall{ToolCallID: e.ToolCallID, Title: e.Title, Kind: kind, RawInput: e.Arguments}
	for _, p := range e.Locations {
		tc.Locations = append(tc.Locations, location{Path: p})
	}
	return tc
}

func (t *translator) diff(id string) *wire.FileDiff {
	if t.diffs == nil {
		return nil
	}
	return t.diffs.diffFor(id)
}

// planUpdate is the plan update for plan, none when nil.
func planUpdate(plan []planEntry) []sessionUpdate {
	if plan == nil {
		return nil
	}
	return []sessionUpdate{{SessionUpdate: updatePlan, Plan: plan}}
}

func chunk(kind, text string) []sessionUpdate {
	if text == "" {
		return nil
	}
	c := textBlock(text)
	return []sessionUpdate{{SessionUpdate: kind, Content: &c}}
}

// diffContent is a write's diff as ACP shows it: absolute path, old text
// (none for a new file), new text.
func diffContent(d *wire.FileDiff) toolCallContent {
	newText := d.NewText
	return toolCallContent{Type: "diff", Path: d.Path, OldText: d.OldText, NewText: &newText}
}

// appNotShown is what a tool call that offered an MCP App (its ui://
// resource uri) says in an ACP editor, which cannot show it.
func appNotShown(uri string) string {
	return "This tool offered a UI (" + trust.Visible(uri) + ") that this editor cannot show; its result is the text above."
}
