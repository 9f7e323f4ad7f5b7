package helix_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestHelixPlanModeByCodeAction, in real Helix: Helix has no UI for
// agentls's modes, so the code action menu offers them; "agentls: Mode:
// Plan" switches the commands' session (agentls says so on the status
// line), and the next task's write is refused without a card, the task's
// progress on the status line naming the mode.
func TestHelixPlanModeByCodeAction(t *testing.T) {
	input, _ := json.Marshal(map[string]string{"path": "main.go", "content": rewritten})
	w := startHelix(t, original,
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "write_file", Input: string(input)}}},
		modeltest.Turn{Text: "Planned, wrote nothing."},
	)
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Mode: Plan`), 30*time.Second)
	w.scr.waitFor(regexp.MustCompile(`mode: Plan \(read-only\)`), 15*time.Second, "agentls's message that the mode changed")
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "add a function Sum`), 30*time.Second)
	reqs := waitRequests(t, w.model, 2, 20*time.Second)
	results := reqs[1].ToolResults()
	if len(results) != 1 || !results[0].IsError || !strings.Contains(results[0].Content, "plan mode is read-only") {
		t.Fatalf("the write's result %+v, want plan mode's refusal", results)
	}
	scr := w.scr.waitFor(regexp.MustCompile(`Planned, wrote nothing\.`), 15*time.Second, "the task's summary")
	if strings.Contains(scr, "func Sum(") || strings.Contains(scr, "agentls: Allow once") {
		t.Errorf("the write reached the buffer or asked:\n%s", scr)
	}
	if b, _ := os.ReadFile(w.file); string(b) != original {
		t.Errorf("plan mode wrote the disk:\n%s", b)
	}
	quit(t, w.scr)
}
