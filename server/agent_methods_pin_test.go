package server

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// agent/pinSession pins a session (agent/sessions says so, and [sessions]
// keep never deletes it) and unpins it; an unknown session is refused
// saying where the ids come from.
func TestPinSessionOverLSP(t *testing.T) {
	e := newEnv(t, "[sessions]\nkeep = 1\n")
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	e.model.Answer(func(modeltest.Request) (modeltest.Turn, bool) { return modeltest.Turn{Text: "ok"}, true })
	var first runResult
	c.mustCall("agent/run", map[string]string{"prompt": "the first"}, &first)
	var out any
	c.mustCall("agent/pinSession", map[string]any{"sessionId": first.SessionID, "pinned": true}, &out)
	var r runResult
	for range 3 {
		c.mustCall("agent/run", map[string]string{"prompt": "another"}, &r)
	}
	var list struct {
		Sessions []struct {
			SessionID string
			Pinned    bool
		}
	}
	c.mustCall("agent/sessions", map[string]any{}, &list)
	if len(list.Sessions) != 2 {
		t.Fatalf("sessions %+v, want the pinned one and the newest (keep = 1)", list.Sessions)
	}
	for _, s := range list.Sessions {
		if (s.SessionID == first.SessionID) != s.Pinned || (s.SessionID != first.SessionID && s.SessionID != r.SessionID) {
			t.Errorf("session %+v: want the first pinned, the newest not", s)
		}
	}
	err := c.call("agent/pinSession", map[string]any{"sessionId": "no-such-session", "pinned": true}, &out)
	if err == nil || !strings.Contains(err.Error(), "agent/sessions") {
		t.Errorf("pinning an unknown session: %v, want an error pointing at agent/sessions", err)
	}
}
