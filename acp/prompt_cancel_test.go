package acp

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// A cancelled prompt is not sent again merged with the next one. An ACP
// client (CodeCompanion) re-sends the cancelled prompt ahead of the next:
// the model reads it once, where it read "Answer slow please\n\nAnswer slow
// please\n\nAfter cancel, one more" before. The cancelled turn stays in the
// session, marked, with what had streamed.
func TestACancelledPromptIsNotSentAgainMerged(t *testing.T) {
	w := newWorld(t, "")
	w.model.Script(modeltest.Turn{Deltas: []string{"Slowly, ", "word by word"}, Hang: true},
		modeltest.Turn{Text: "one more answer"})
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "prompt", Text: "Answer slow please", CancelOnText: true},
		{Op: "prompt", Text: "Answer slow please\n\nAfter cancel, one more"},
		{Op: "load", Cwd: w.root}}})
	if out.stopReason(2) != StopCancelled || out.stopReason(3) != StopEndTurn {
		t.Fatalf("stop reasons %s, %s; want cancelled, end_turn", out.Steps[2].Result, out.Steps[3].Result)
	}
	reqs := w.model.ModelRequests("openai")
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d, want 2", len(reqs))
	}
	body := string(reqs[1].Body)
	if n := strings.Count(body, "Answer slow please"); n != 1 {
		t.Errorf("the cancelled prompt reached the model %d times in the next request, want once:\n%s", n, body)
	}
	if !strings.Contains(reqs[1].LastUserText(), "After cancel, one more") {
		t.Errorf("the next prompt is not the last user message: %q", reqs[1].LastUserText())
	}
	// session/load replays the cancelled turn with what had streamed and
	// says it was cut off.
	var loaded strings.Builder
	for _, u := range out.Updates {
		loaded.WriteString(u.Update.chunkText())
	}
	if !strings.Contains(loaded.String(), "cut off: the user cancelled the turn") {
		t.Errorf("session/load does not show the cancelled turn as cut off:\n%s\n%s %+v", loaded.String(), out.Steps[4].Result, out.Steps[4].Error)
	}
}
