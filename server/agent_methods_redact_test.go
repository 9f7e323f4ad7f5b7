package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/trust"
)

// TestRunResultAndTextEventsAreRedacted is red-team finding 9 through serve:
// the agent/run result and the agent/event text notifications carried a
// token the model echoed. Here the token is cut mid-word across deltas.
func TestRunResultAndTextEventsAreRedacted(t *testing.T) {
	deltas := []string{"The token is: ", "ghp_h12aServe", "TextAbCdEfGhIjKlMn", "OpQr and that is all."}
	full := strings.Join(deltas, "")
	e := newEnv(t, "")
	e.model.Script(modeltest.Turn{Deltas: deltas})
	c := e.start(t)
	c.initialize(e.root, caps(true, true, false))
	res := c.await(c.runAsync(map[string]string{"prompt": "say the token"}))
	want := trust.Redact(full)
	if res.StopReason != "end_turn" || res.Text != want || strings.Contains(want, "TextAbCd") {
		t.Errorf("agent/run = %+v, want end_turn with text %q", res, want)
	}
	var streamed strings.Builder
	for _, m := range c.messages("agent/event") {
		var ev struct{ Type, Delta, Text string }
		json.Unmarshal(m.Params, &ev)
		for _, piece := range []string{"ghp_h12aServe", "TextAbCdEfGhIjKlMn", "OpQr"} {
			if strings.Contains(ev.Delta+ev.Text, piece) {
				t.Errorf("an agent/event %s carries %q: %s", ev.Type, piece, m.Params)
			}
		}
		if ev.Type == "text" {
			streamed.WriteString(ev.Delta)
		}
	}
	if streamed.String() != want {
		t.Errorf("text events joined = %q, want %q", streamed.String(), want)
	}
}
