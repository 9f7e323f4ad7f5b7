package server

import (
	"encoding/json"

	"github.com/agentls/agentls/wire"
)

// eventWire is one agent/event as docs/protocol.md section 3 gives it: the
// struct of its type (wire.EventParams), every field of the type present,
// marshalled once. It runs on the task's sender goroutine.
func (t *taskSink) eventWire(e wire.Event) json.RawMessage {
	b, _ := json.Marshal(wire.EventParams(e))
	return b
}
