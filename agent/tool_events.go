package agent

import (
	"encoding/json"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// callEvents emits the events of one tool call (docs/protocol.md section 3).
// Order: the first tool_call carries the call's kind and locations and its
// status: pending for a call an approval may follow (an MCP call or a gated
// built-in), running for a read-only built-in; later ones (awaiting_approval,
// running once allowed) change the status; every tool_call carries the
// (redacted) arguments; every call ends with
// a tool_call carrying its final status (completed, failed, denied or
// cancelled) immediately followed by its tool_result, which is always the
// call's last event. A client that only watches tool_call sees every call
// end; one that waits for tool_result still finds it last.
type callEvents struct {
	r                   *run
	id                  string
	tool, server, title string
	kind                wire.ToolKind
	args                json.RawMessage
	locations           []string
	announced           bool
	structured          json.RawMessage // the MCP result's structuredContent, for an App
}

// event is a tool_call of this call with status s. Every one carries the
// call's (redacted) arguments (docs/protocol.md section 3: every update
// repeats them).
func (c *callEvents) event(s wire.ToolStatus) wire.Event {
	return wire.Event{Type: wire.EventToolCall, ToolCallID: c.id, Tool: c.tool, Server: c.server, Title: c.title, Status: s, Arguments: c.args}
}

// status emits a tool_call with the given status; the first one announces
// the call with its kind and locations (and writes it to the transcript).
func (c *callEvents) status(s wire.ToolStatus) {
	e := c.event(s)
	if !c.announced {
		c.announced = true
		e.Kind, e.Locations = c.kind, c.locations
		defer c.r.tr.ToolCall(c.title, c.args)
	}
	c.r.emit(e)
}

// finish ends the call: its final tool_call, then its tool_result with a
// capped, redacted preview of out (which names any images; the event
// carries them for ACP). It returns the tool_result block for the model.
func (c *callEvents) finish(out string, isErr bool, status wire.ToolStatus, images ...model.Image) model.Block {
	c.status(status)
	preview := tools.CapText(out, previewMax)
	app := c.r.appOffered(c.tool, status, isErr, c.structured)
	c.r.emit(wire.Event{Type: wire.EventToolResult, ToolCallID: c.id, Status: status, Output: trust.Redact(preview), IsError: isErr,
		Images: wireImages(images), UI: app, Structured: redactJSON(c.structured)})
	c.r.tr.ToolResult(status, preview)
	c.r.tellApp(c.tool, app)
	return model.Block{Type: "tool_result", ToolUseID: c.id, Content: out, IsError: isErr, Images: images}
}
