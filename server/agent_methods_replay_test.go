package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// agent/replay answers a stored session as the events a chat view shows
// for it: each prompt, the answer's text and every tool call with its
// result, in the order of the turns, so a client reopening a conversation
// shows it as it was; an unknown session is refused saying where ids come
// from.
func TestReplayOverLSP(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	e.model.Script(
		modeltest.Turn{Text: "Reading it.", ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "list_directory", Input: `{"path": "."}`}}},
		modeltest.Turn{Text: "The folder holds one file."},
		modeltest.Turn{Text: "It is the first answer again."},
	)
	var first, second runResult
	c.mustCall("agent/run", map[string]string{"prompt": "what is here?"}, &first)
	c.mustCall("agent/run", map[string]string{"prompt": "say that again", "sessionId": first.SessionID}, &second)

	var r struct {
		SessionID string
		Events    []map[string]any
	}
	c.mustCall("agent/replay", map[string]string{"sessionId": first.SessionID}, &r)
	if r.SessionID != first.SessionID {
		t.Fatalf("replay of %s answered %s", first.SessionID, r.SessionID)
	}
	var got []string
	for i, ev := range r.Events {
		if ev["sessionId"] != first.SessionID || ev["seq"] != float64(i+1) {
			t.Errorf("event %d: %v, want sessionId %s and seq %d", i, ev, first.SessionID, i+1)
		}
		s := ev["type"].(string)
		for _, k := range []string{"text", "delta", "tool", "status"} {
			if v, ok := ev[k].(string); ok && v != "" {
				s += " " + k + "=" + v
			}
		}
		got = append(got, s)
	}
	want := []string{
		"prompt text=what is here?",
		"text delta=Reading it.",
		"tool_call tool=list_directory status=pending",
		"tool_call tool=list_directory status=completed",
		"tool_result status=completed",
		"text delta=The folder holds one file.",
		"prompt text=say that again",
		"text delta=It is the first answer again.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("replayed events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	var out json.RawMessage
	err := c.call("agent/replay", map[string]string{"sessionId": "no-such-session"}, &out)
	if err == nil || !strings.Contains(err.Error(), "agent/sessions") {
		t.Errorf("replaying an unknown session: %v, want an error pointing at agent/sessions", err)
	}
	err = c.call("agent/replay", map[string]string{}, &out)
	if err == nil || !strings.Contains(err.Error(), "sessionId") {
		t.Errorf("replay without a session: %v, want an error naming sessionId", err)
	}
}

// agent/status names the model the config resolves and the mode, without
// a request to the model.
func TestStatusOverLSP(t *testing.T) {
	for _, tc := range []struct{ extra, mode string }{{"", "ask"}, {"[agent]\nautopilot = true\n", "autopilot"}} {
		e := newEnv(t, tc.extra)
		c := e.start(t)
		c.initialize(e.root, caps(false, false, false))
		var st struct {
			Model struct{ Provider, Name, Error string }
			Mode  string
		}
		c.mustCall("agent/status", map[string]any{}, &st)
		if st.Model.Provider == "" || st.Model.Name == "" || st.Model.Error != "" || st.Mode != tc.mode {
			t.Errorf("agent/status with %q: %+v, want the configured model and mode %s", tc.extra, st, tc.mode)
		}
		if n := len(e.model.Requests()); n != 0 {
			t.Errorf("agent/status made %d model requests, want none", n)
		}
	}
}
