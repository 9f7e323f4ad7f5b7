package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestChatATaskOutlivesItsTurn: in `agentls chat` on a terminal, a call a
// real 2026-07-28 server (the official TypeScript SDK v2) runs as a task
// shows the task's status as its progress; still working at the server's
// call_timeout, the call ends saying the task goes on, and so does the
// turn. Released, the task finishes after the turn: its result is in the
// session's transcript, and the next turn's message carries it to the
// model.
func TestChatATaskOutlivesItsTurn(t *testing.T) {
	e := newRunEnv(t, "anthropic", `"v2__long" = "allow"`)
	dir := t.TempDir()
	hold := filepath.Join(dir, "release")
	f, err := os.OpenFile(e.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// call_timeout ends the call while the task is held; it is what makes
	// the task outlive the turn, not a time the test measures.
	fmt.Fprintf(f, "\n[mcp.servers.v2]\ncommand = %q\nargs = [%q]\ncall_timeout = \"10s\"\nenv = { MCP_V2_LOG = %q }\n",
		testenv.Tool(t, "node"), testenv.MCPv2Server(t), filepath.Join(dir, "requests.log"))
	f.Close()
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "k1", Name: "v2__long", Input: `{"steps":1,"hold":"` + hold + `"}`}}},
		modeltest.Turn{Text: "It runs on."},
		modeltest.Turn{Text: "Noted."},
	)
	term := onTerminal(t, e, "chat", 200, 50)
	term.wait("/help for commands", true)
	term.keys("-l", "run it")
	term.keys("Enter")
	term.wait("… waiting for "+hold, true)
	screen := term.wait("It runs on.", true)
	if !strings.Contains(screen, "v2__long is still running on v2 as task t-1") {
		t.Errorf("the call's result does not say the task goes on:\n%s", screen)
	}
	if err := os.WriteFile(hold, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var transcript string
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(transcript, "task t-1 of v2 has finished. Its result:\n> finished 1 steps") {
		if time.Now().After(deadline) {
			t.Fatalf("the task's result is not in the transcript:\n%s", transcript)
		}
		time.Sleep(100 * time.Millisecond)
		matches, _ := filepath.Glob(filepath.Join(e.state, "agentls", "transcripts", "*.md"))
		if len(matches) == 1 {
			b, _ := os.ReadFile(matches[0])
			transcript = string(b)
		}
	}
	term.keys("-l", "and now?")
	term.keys("Enter")
	screen = term.wait("Noted.", true)
	reqs := e.model.Requests()
	last := reqs[len(reqs)-1].LastUserText()
	if !strings.Contains(last, "[agentls: since your last turn]") || !strings.Contains(last, "finished 1 steps") || !strings.Contains(last, "and now?") {
		t.Fatalf("the next turn's message: %q", last)
	}
	t.Logf("agentls chat:\n%s", strings.TrimSpace(screen))
	t.Logf("the next turn's message: %q", last)
}
