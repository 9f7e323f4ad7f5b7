package agent

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestTaskWroteListsOnlyTheWritesThatLanded: Task.Wrote names the files
// whose write the user approved and the editor took, and nothing when the
// write was denied or the task only answered (the LSP server removes a
// task's `agent:` directive only when it is not empty).
func TestTaskWroteListsOnlyTheWritesThatLanded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		turn  modeltest.Turn
		opt   string
		wrote bool
	}{
		{"approved write", modeltest.Turn{ToolCalls: []modeltest.ToolCall{writeCall("w1", "a.txt", "one\n")}}, "allow_once", true},
		{"denied write", modeltest.Turn{ToolCalls: []modeltest.ToolCall{writeCall("w1", "a.txt", "one\n")}}, "reject_once", false},
		{"an answer only", modeltest.Turn{Text: "nothing to change"}, "allow_once", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "anthropic", nil)
			f.ws.applies = true
			f.model.Script(tc.turn, modeltest.Turn{Text: "done"})
			task := f.core.Start(RunRequest{Prompt: "write a.txt"}, TaskIO{Approver: &answer{opt: tc.opt}, Workspace: f.ws})
			if res := wait(t, task); res.StopReason != "end_turn" {
				t.Fatalf("result %+v", res)
			}
			want := []string(nil)
			if tc.wrote {
				want = []string{filepath.Join(f.dir, "a.txt")}
			}
			if got := task.Wrote(); !slices.Equal(got, want) {
				t.Errorf("Wrote() = %q, want %q (editor writes %q)", got, want, f.ws.writes)
			}
		})
	}
}
