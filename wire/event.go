package wire

import "encoding/json"

// The agent/event params as a client receives them: one struct per event
// type listing exactly the fields docs/protocol.md section 3 gives that
// type, the ones it marks present always without omitempty, so a plugin
// can read ev.isError or ev.text without checking that it exists. Event
// (which omits zero fields, and carries what only ACP shows) becomes one of
// them with EventParams; the LSP front and `agentls run --json` send that.

// EventHeader is what every agent/event carries.
type EventHeader struct {
	TaskID    string    `json:"taskId"`
	SessionID string    `json:"sessionId"`
	Seq       int       `json:"seq"`
	Type      EventType `json:"type"`
}

// TextEvent is a text event: streamed assistant text, secrets redacted.
type TextEvent struct {
	EventHeader
	Delta string `json:"delta"`
}

// ReasoningEvent is a reasoning event: the model's reasoning as it
// streams, secrets redacted, for a front to show folded and marked as
// reasoning, never as the answer.
type ReasoningEvent struct {
	EventHeader
	Delta string `json:"delta"`
}

// ToolCallEvent is a tool_call event. Every update repeats the call's
// (redacted) arguments, {} when it had none; Message is an MCP server's
// progress for the call ("3/5: message").
type ToolCallEvent struct {
	EventHeader
	ToolCallID string          `json:"toolCallId"`
	Tool       string          `json:"tool"`
	Server     string          `json:"server,omitempty"`
	Title      string          `json:"title"`
	Arguments  json.RawMessage `json:"arguments"`
	Status     ToolStatus      `json:"status"`
	Message    string          `json:"message,omitempty"`
}

// ToolResultEvent is a tool_result event, a call's last.
type ToolResultEvent struct {
	EventHeader
	ToolCallID string     `json:"toolCallId"`
	Status     ToolStatus `json:"status"`
	Output     string     `json:"output"`
	IsError    bool       `json:"isError"`
	UI         *AppRef    `json:"ui,omitempty"`
}

// ApprovalEvent is an approval event: a card is waiting, or was resolved
// with OptionID.
type ApprovalEvent struct {
	EventHeader
	ApprovalID string        `json:"approvalId"`
	State      ApprovalState `json:"state"`
	OptionID   string        `json:"optionId,omitempty"`
}

// StatusEvent is a status event: a line about the task.
type StatusEvent struct {
	EventHeader
	Message string `json:"message"`
	Mode    Mode   `json:"mode"`
	Profile string `json:"profile,omitempty"`
	Model   string `json:"model,omitempty"`
}

// DoneEvent is a task's last event. Error (and Message, for clients that
// read it) say why a failed turn failed, as agent/run's result does.
type DoneEvent struct {
	EventHeader
	StopReason StopReason `json:"stopReason"`
	Text       string     `json:"text"`
	Usage      Usage      `json:"usage"`
	Cost       *float64   `json:"cost,omitempty"` // US dollars at the model's price; absent without one
	Error      string     `json:"error,omitempty"`
	Message    string     `json:"message,omitempty"`
	Mode       Mode       `json:"mode"`
	Profile    string     `json:"profile,omitempty"`
	Model      string     `json:"model,omitempty"`
}

// emptyArguments are the arguments of a call that had none.
var emptyArguments = json.RawMessage("{}")

// EventParams is e as agent/event sends it: the struct of its type. An
// event of a type the protocol does not list goes out as e itself.
func EventParams(e Event) any {
	h := EventHeader{TaskID: e.TaskID, SessionID: e.SessionID, Seq: e.Seq, Type: e.Type}
	switch e.Type {
	case EventText:
		return &TextEvent{EventHeader: h, Delta: e.Delta}
	case EventReasoning:
		return &ReasoningEvent{EventHeader: h, Delta: e.Delta}
	case EventToolCall:
		args := e.Arguments
		if len(args) == 0 {
			args = emptyArguments
		}
		return &ToolCallEvent{EventHeader: h, ToolCallID: e.ToolCallID, Tool: e.Tool, Server: e.Server,
			Title: e.Title, Arguments: args, Status: e.Status, Message: e.Message}
	case EventToolResult:
		return &ToolResultEvent{EventHeader: h, ToolCallID: e.ToolCallID, Status: e.Status, Output: e.Output, IsError: e.IsError, UI: e.UI}
	case EventApproval:
		return &ApprovalEvent{EventHeader: h, ApprovalID: e.ApprovalID, State: e.State, OptionID: e.OptionID}
	case EventStatus:
		return &StatusEvent{EventHeader: h, Message: e.Message, Mode: e.Mode, Profile: e.Profile, Model: e.Model}
	case EventDone:
		d := &DoneEvent{EventHeader: h, StopReason: e.StopReason, Text: e.Text, Error: e.Message, Message: e.Message, Mode: e.Mode, Profile: e.Profile, Model: e.Model, Cost: e.Cost}
		if e.Usage != nil {
			d.Usage = *e.Usage
		}
		return d
	}
	return &e
}
