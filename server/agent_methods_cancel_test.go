package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// Over LSP, a prompt cancelled mid-answer and sent again ahead of the next
// one (as a client that retries does) reaches the model once; a prompt
// that differs carries the cancelled turn once, marked as cut off.
func TestACancelledPromptIsNotSentAgainOverLSP(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.initialize(e.root, caps(false, true, false))
	e.model.Script(modeltest.Turn{Deltas: []string{"Slowly, ", "word by word"}, Hang: true},
		modeltest.Turn{Text: "one more answer"},
		modeltest.Turn{Deltas: []string{"Half an answer, "}, Hang: true},
		modeltest.Turn{Text: "other answer"})
	const session = "lsp-cancel"
	cancelled := func(prompt string) {
		t.Helper()
		seen := map[string]bool{} // the tasks before this one
		for _, m := range c.messages("agent/event") {
			var e struct{ TaskID string }
			json.Unmarshal(m.Params, &e)
			seen[e.TaskID] = true
		}
		res, errc := c.runAsync(map[string]any{"prompt": prompt, "sessionId": session})
		ev := c.waitFor("the first text", func(m message) bool {
			var e struct{ Type, Delta, TaskID string }
			json.Unmarshal(m.Params, &e)
			return m.Method == "agent/event" && e.Type == "text" && e.Delta != "" && !seen[e.TaskID]
		})
		var e struct{ TaskID string }
		json.Unmarshal(ev.Params, &e)
		var out any
		c.mustCall("agent/cancel", map[string]string{"taskId": e.TaskID}, &out)
		if r := c.await(res, errc); r.StopReason != "cancelled" {
			t.Fatalf("%q: result %+v, want cancelled", prompt, r)
		}
	}
	cancelled("Answer slow please")
	var r runResult
	c.mustCall("agent/run", map[string]string{"prompt": "Answer slow please\n\nAfter cancel, one more", "sessionId": session}, &r)
	reqs := e.model.ModelRequests("openai")
	if n := strings.Count(string(reqs[len(reqs)-1].Body), "Answer slow please"); n != 1 {
		t.Errorf("the cancelled prompt reached the model %d times, want once:\n%s", n, reqs[len(reqs)-1].Body)
	}

	cancelled("write a poem")
	c.mustCall("agent/run", map[string]string{"prompt": "something else", "sessionId": session}, &r)
	reqs = e.model.ModelRequests("openai")
	body := string(reqs[len(reqs)-1].Body)
	if strings.Count(body, "write a poem") != 1 || !strings.Contains(body, "Half an answer, \\n\\n[agentls: this answer was cut off here: the user cancelled the turn.]") {
		t.Errorf("the next request does not carry the cancelled turn once, marked cut off:\n%s", body)
	}
}
