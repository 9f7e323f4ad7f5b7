package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestATaskThroughACP drives agentls acp with the official ACP client: a
// call a real 2026-07-28 server runs as a task is in_progress with the
// task's status as its content (tool_call_update) until its result; a
// second one, still working, is cancelled with session/cancel, and the
// server gets tasks/cancel for it.
func TestATaskThroughACP(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "requests.log")
	w := newWorld(t, testenv.MCPv2ServerConfig(t, log))
	w.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "k1", Name: "v2__long", Input: `{"steps":2}`}}}, modeltest.Turn{Text: "ran"})
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root}, {Op: "prompt", Text: "run it"}}})
	var progress []string
	ups := out.toolUpdates("k1")
	for _, u := range ups {
		if u.SessionUpdate == updateToolCallUpdate && u.Status == "in_progress" {
			for _, c := range u.contents() {
				progress = append(progress, c.Content.Text)
			}
		}
	}
	if len(progress) == 0 {
		t.Fatalf("no in_progress update carries the task's status: %+v", ups)
	}
	for _, p := range progress {
		if p != "started" && p != "done" && !strings.HasPrefix(p, "step ") {
			t.Errorf("progress %q is not the task's status", p)
		}
	}
	if last := ups[len(ups)-1]; last.Status != "completed" || len(last.contents()) != 1 || last.contents()[0].Content.Text != "finished 2 steps" {
		t.Errorf("last update %+v", last)
	}

	w.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "k2", Name: "v2__long", Input: `{"hold":"` + filepath.Join(dir, "never") + `"}`}}}, modeltest.Turn{Text: "never"})
	out = w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root}, {Op: "prompt", Text: "run a long one", CancelOnUpdate: "waiting for "}}})
	if got := out.stopReason(2); got != "cancelled" {
		t.Fatalf("stop reason %q, want cancelled", got)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "tasks/cancel t-1\n") {
		t.Errorf("no tasks/cancel reached the server:\n%s", b)
	}
}
