package helix_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestHelixRulesAndHooksByCodeAction, in real Helix: the user's
// before_tool hook denies the model's `rm -rf build` before any card (the
// build folder stays, the model reads the hook's reason); the command card
// of `echo helix-rule` offers "Always allow in this workspace", picked from
// the code action menu, and the next task's same command runs without a
// card; "agentls: Forget rule: ..." forgets it. The turn_end hook's output
// reaches Helix as a progress report (its log has it).
func TestHelixRulesAndHooksByCodeAction(t *testing.T) {
	rule := modeltest.ToolCall{ID: "c2", Name: "run_command", Input: `{"command":"echo helix-rule"}`}
	w := startHelixConfig(t, map[string]string{"main.go": original}, `
[[hooks.before_tool]]
command = ["sh", "-c", "case \"$AGENTLS_HOOK_EVENT\" in *'rm -rf'*) echo 'hook: rm is not allowed in this repository'; exit 2;; esac"]
tools = ["run_command"]

[[hooks.turn_end]]
command = ["sh", "-c", "echo turn-end hook ran"]
`,
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "run_command", Input: `{"command":"rm -rf build"}`}, rule}},
		modeltest.Turn{Text: "Ran the check."},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c3", Name: "run_command", Input: `{"command":"echo helix-rule"}`}}},
		modeltest.Turn{Text: "Ran it again."},
	)
	if err := os.MkdirAll(filepath.Join(w.ws, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	scr := w.scr
	scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "add a function Sum`), 30*time.Second)
	scr.pickCodeAction(regexp.MustCompile(`^agentls: Always allow in this workspace: run .echo helix-rule. without asking`), 30*time.Second)
	scr.waitFor(regexp.MustCompile(`Ran the check\.`), 20*time.Second, "the first task's summary")
	reqs := waitRequests(t, w.model, 2, 20*time.Second)
	rs := reqs[1].ToolResults()
	if len(rs) != 2 || !rs[0].IsError || !strings.Contains(rs[0].Content, "hook: rm is not allowed in this repository") ||
		rs[1].IsError || !strings.Contains(rs[1].Content, "helix-rule") {
		t.Fatalf("the model read %+v, want the hook's denial, then the command's output", rs)
	}
	if _, err := os.Stat(filepath.Join(w.ws, "build")); err != nil {
		t.Errorf("the build folder is gone: %v", err)
	}

	// The rule: the same command in the next task asks nothing.
	scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "add a function Sum`), 30*time.Second)
	scr.waitFor(regexp.MustCompile(`Ran it again\.`), 20*time.Second, "the second task's summary, without a card")
	reqs = waitRequests(t, w.model, 4, 20*time.Second)
	if rs := reqs[3].ToolResults(); len(rs) == 0 || rs[len(rs)-1].IsError || !strings.Contains(rs[len(rs)-1].Content, "helix-rule") {
		t.Fatalf("the ruled command's result %+v, want its output", rs)
	}
	scr.pickCodeAction(regexp.MustCompile(`^agentls: Forget rule: command: echo helix-rule`), 30*time.Second)
	scr.waitFor(regexp.MustCompile(`forgot the rule command: echo helix-rule`), 15*time.Second, "agentls's message that the rule is gone")

	// Helix's log has every message agentls sent: the hook's output came
	// as a progress report (the status line), not only in a logMessage.
	log, _ := os.ReadFile(w.log)
	n := 0
	for _, line := range strings.Split(string(log), "\n") {
		if strings.Contains(line, `"method":"$/progress"`) && strings.Contains(line, "turn_end hook sh -c echo turn-end hook ran (exit status 0): turn-end hook ran") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("the turn_end hook's output reached Helix's status line %d times, want once per task (2)", n)
	}
	quit(t, scr)
}
