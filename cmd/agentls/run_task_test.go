package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestRunShowsATasksProgress: `agentls run` with a real 2026-07-28 server
// that runs the call as a task prints the task's status as the call's
// progress on stderr, then its result.
func TestRunShowsATasksProgress(t *testing.T) {
	e := newRunEnv(t, "anthropic", `"v2__long" = "allow"`)
	log := filepath.Join(t.TempDir(), "requests.log")
	cfg, err := os.ReadFile(e.config)
	if err != nil {
		t.Fatal(err)
	}
	s := string(cfg) + fmt.Sprintf("\n[mcp.servers.v2]\ncommand = %q\nargs = [%q]\nenv = { MCP_V2_LOG = %q }\n",
		testenv.Tool(t, "node"), testenv.MCPv2Server(t), log)
	if err := os.WriteFile(e.config, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	e.model.Script(modeltest.Turn{Text: "Running.", ToolCalls: []modeltest.ToolCall{{ID: "call_long", Name: "v2__long", Input: `{"steps":2}`}}},
		modeltest.Turn{Text: "Ran."})
	code, stdout, stderr := e.run(t, "run it")
	if code != 0 || !strings.Contains(stdout, "Ran.") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "  … ") || !strings.Contains(stderr, "  completed: finished 2 steps") {
		t.Errorf("stderr shows no progress of the task, or not its result:\n%s", stderr)
	}
	for _, line := range strings.Split(stderr, "\n") {
		if msg, ok := strings.CutPrefix(line, "  … "); ok && msg != "started" && msg != "done" && !strings.HasPrefix(msg, "step ") {
			t.Errorf("progress line %q is not the task's status", line)
		}
	}
}
