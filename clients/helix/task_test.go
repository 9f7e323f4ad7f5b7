package helix_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestHelixShowsATasksStatus: a task started by code action whose model
// calls a tool a real 2026-07-28 server (the official TypeScript SDK v2)
// runs as a task: while the task works, Helix's progress line shows its
// status; once it is released, the task's summary comes and the
// transcript has the call's result. A second one, held for ever, is
// cancelled by code action, and the server gets tasks/cancel for it.
func TestHelixShowsATasksStatus(t *testing.T) {
	dir := t.TempDir()
	hold, log := filepath.Join(dir, "go"), filepath.Join(dir, "requests.log")
	w := startHelixConfig(t, map[string]string{"main.go": original},
		"[mcp]\nstartup_wait = \"60s\"\n\n"+testenv.MCPv2ServerConfig(t, log),
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "k1", Name: "v2__long", Input: `{"steps":1,"hold":"` + hold + `"}`}}},
		modeltest.Turn{Text: "It ran."},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "k2", Name: "v2__long", Input: `{"hold":"` + filepath.Join(dir, "never") + `"}`}}},
		modeltest.Turn{Text: "never"},
	)
	// Helix shows a progress report's message only with this setting
	// (the README says to set it).
	w.scr.command(":set lsp.display-progress-messages true")
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "add a function Sum`), 30*time.Second)
	scr := w.scr.waitFor(regexp.MustCompile(`v2__long: waiting for `), 60*time.Second, "the task's status in the progress line")
	t.Logf("while the task works:\n%s", lastLines(scr, 3))
	if err := os.WriteFile(hold, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w.scr.waitFor(regexp.MustCompile(`It ran\.`), 60*time.Second, "the task's summary")
	w.scr.command(":lsp-workspace-command agentls.transcript")
	w.scr.waitFor(regexp.MustCompile(`finished 1 steps`), 15*time.Second, "the task's result in the transcript")
	w.scr.command(":buffer-close")

	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "add a function Sum`), 30*time.Second)
	waitRequests(t, w.model, 3, 30*time.Second)
	w.scr.waitFor(regexp.MustCompile(`v2__long: waiting for .*never`), 60*time.Second, "the second task's status")
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Cancel task`), 30*time.Second)
	w.scr.waitFor(regexp.MustCompile(`agentls: cancelled`), 15*time.Second, "the task's end on the status line")
	if b, err := os.ReadFile(log); err != nil || !strings.Contains(string(b), "tasks/cancel t-2\n") {
		t.Errorf("no tasks/cancel reached the server (%v):\n%s", err, b)
	}
	quit(t, w.scr)
}

// lastLines is the last n non-empty lines of a screen.
func lastLines(scr string, n int) string {
	var keep []string
	for _, l := range strings.Split(scr, "\n") {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, "\n")
}
