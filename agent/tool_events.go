package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

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

// call is the loop's side of one tool call (tools.Call): its events and its
// gate.
type call struct {
	*callEvents
	running bool            // a running tool_call went out
	ctx     context.Context // the call's: its cancel ends a question the server asks meanwhile

	mu        sync.Mutex // guards ended, questions, refused, told: servers report from their own goroutines
	ended     bool
	questions int  // elicitation cards shown during the call
	refused   bool // the user turned one down (declined, cancelled, let it time out)
	told      bool // the call's events said a question was declined without a card

	// Progress coalescing (progressEvery), guarded by mu too.
	shownAt  time.Time   // when the last progress tool_call went out
	shown    string      // its message, unredacted
	pending  string      // the latest message not shown yet, if held
	held     bool        // pending holds one
	progTick *time.Timer // shows pending when progressEvery has passed
}

// declined reports whether this is the first of the call's questions
// declined without a card: only the first says so (a message on the
// call, a log line), so a flood of them is not a flood of events.
func (c *call) declined() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	first := !c.told
	c.told = true
	return first
}

// askable says why the call's server may not put one more question to
// the user ("" when it may) and counts it: after one was turned down, or
// past elicitPerCall, the server's questions are declined without a card.
// The user's time on a card does not count against call_timeout, so
// without this a server could hold a call, and the user, indefinitely.
func (c *call) askable() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.refused:
		return "you turned down an earlier question of this call"
	case c.questions >= elicitPerCall:
		return fmt.Sprintf("one call may ask at most %d questions", elicitPerCall)
	}
	c.questions++
	return ""
}

// refuse records that the user turned a question of the call down.
func (c *call) refuse() {
	c.mu.Lock()
	c.refused = true
	c.mu.Unlock()
}

// Progress reports a running call's progress: a tool_call, status running,
// with a message.
// At most one goes out per progressEvery (the latest wins): see there.
func (c *call) Progress(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	if wait := progressEvery - time.Since(c.shownAt); wait > 0 || c.progTick != nil {
		c.pending, c.held = msg, true
		if c.progTick == nil {
			c.progTick = time.AfterFunc(wait, c.showHeld)
		}
		return
	}
	c.showProgress(msg)
}

// showHeld shows the progress held back since the last one went out.
func (c *call) showHeld() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.progTick = nil
	if !c.ended && c.held {
		c.showProgress(c.pending)
	}
}

// showProgress sends one progress tool_call; c.mu is held.
func (c *call) showProgress(msg string) {
	c.held, c.pending = false, ""
	c.shownAt = time.Now()
	if msg == c.shown {
		return
	}
	c.shown = msg
	e := c.event(wire.StatusRunning)
	e.Message = trust.Redact(msg)
	c.r.emit(e)
}

// heard runs f unless the call ended: no progress may follow a call's final
// tool_call and tool_result.
func (c *call) heard(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ended {
		f()
	}
}

// progressEvery is the least time between two progress tool_calls of one
// call. A server may send notifications/progress in a tight loop (tens of
// thousands a second); each shown one is an agent/event, an LSP $/progress
// report, an ACP tool_call_update and a redaction, so a call's progress is
// coalesced: at most one per progressEvery, the latest winning, and the
// last one not shown yet goes out before the call's final tool_call.
const progressEvery = 150 * time.Millisecond

// appOffered is the App of a completed call of the model's own to an MCP
// tool that offers one, or nil. A call an App or an outside client made
// is never given one (an App does not open Apps).
func (r *run) appOffered(name string, status wire.ToolStatus, isErr bool, structured json.RawMessage) *wire.AppRef {
	if isErr || status != wire.StatusCompleted || r.client != "" || r.core.reg == nil {
		return nil
	}
	for _, t := range r.core.reg.Tools() {
		if t.Name == name && t.UI != "" {
			return &wire.AppRef{Server: t.Server, Tool: t.ServerTool, ResourceURI: t.UI, StructuredContent: redactJSON(structured)}
		}
	}
	return nil
}

// tellApp writes the App a call offered to the transcript, and tells a
// front that cannot show it so.
func (r *run) tellApp(name string, app *wire.AppRef) {
	if app == nil {
		return
	}
	if r.io.ShowsApps {
		r.tr.Note(fmt.Sprintf("%s offered a UI (%s), shown in the editor", trust.Visible(name), trust.Visible(app.ResourceURI)))
		return
	}
	msg := fmt.Sprintf("%s offered a UI (%s) that this editor cannot show; its result is the text above", trust.Visible(name), trust.Visible(app.ResourceURI))
	r.tr.Note(msg)
	r.emitStatus(msg)
}
