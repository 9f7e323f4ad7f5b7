package server

import (
	"encoding/json"
	"github.com/agentls/agentls/wire"

	"github.com/agentls/agentls/agent"
)

// eventWire is one agent/event as docs/protocol.md section 3 gives it: every
// field of its type is present, zero or not, so a plugin can read
// ev.isError or ev.text without checking that it exists (agent.Event omits
// zero fields). Every tool_call carries its call's arguments (the core
// puts them on each); a done event of a failed turn carries error, as the
// agent/run result does. It runs on the task's sender goroutine.
func (t *taskSink) eventWire(e agent.Event) json.RawMessage {
	b, err := json.Marshal(e)
	if err != nil || len(b) < 2 || b[len(b)-1] != '}' {
		return b
	}
	b = b[:len(b)-1]
	str := func(key, v string) {
		if v == "" {
			b = append(b, `,"`+key+`":""`...)
		}
	}
	switch e.Type {
	case wire.EventText:
		str("delta", e.Delta)
	case wire.EventToolCall:
		str("toolCallId", e.ToolCallID)
		str("tool", e.Tool)
		str("title", e.Title)
		str("status", string(e.Status))
		if len(e.Arguments) == 0 {
			b = append(b, `,"arguments":{}`...)
		}
	case wire.EventToolResult:
		str("toolCallId", e.ToolCallID)
		str("status", string(e.Status))
		str("output", e.Output)
		if !e.IsError {
			b = append(b, `,"isError":false`...)
		}
	case wire.EventApproval:
		str("approvalId", e.ApprovalID)
		str("state", string(e.State))
	case wire.EventStatus:
		str("message", e.Message)
	case wire.EventDone:
		str("stopReason", string(e.StopReason))
		str("text", e.Text)
		if e.Usage == nil {
			b = append(b, `,"usage":{"inputTokens":0,"outputTokens":0}`...)
		}
		if e.Message != "" {
			// The agent/run result names it error; so does its done event
			// (message stays, for clients that read it).
			if q, err := json.Marshal(e.Message); err == nil {
				b = append(append(b, `,"error":`...), q...)
			}
		}
	}
	return append(b, '}')
}
