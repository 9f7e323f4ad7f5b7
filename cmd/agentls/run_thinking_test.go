package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestRunAnthropicThinking: [model] thinking turns Claude's extended
// thinking on; its tool turns complete (the fake refuses, as the API does,
// a tool turn whose signed thinking did not come back, a max_tokens not
// above the budget, a temperature), on a session continued from disk too,
// and the thinking is shown marked on stderr.
func TestRunAnthropicThinking(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	cfg, _ := os.ReadFile(e.config)
	os.WriteFile(e.config, []byte(strings.Replace(string(cfg), "[model]\n", "[model]\nthinking = 2048\n", 1)), 0o600)
	os.WriteFile(filepath.Join(e.ws, "hello.txt"), []byte("hello\n"), 0o644)
	read := modeltest.ToolCall{Name: "read_file", Input: `{"path":"hello.txt"}`}
	e.model.Script(modeltest.Turn{Thinking: "Read hello.txt.", ToolCalls: []modeltest.ToolCall{read}}, modeltest.Turn{Text: "It says hello."})
	code, stdout, stderr := e.run(t, "what does hello.txt say?")
	if code != 0 || !strings.Contains(stdout, "It says hello.") || !strings.Contains(stderr, reasoningMark+"Read hello.txt.") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{read}}, modeltest.Turn{Text: "Still hello."})
	code, stdout, stderr = e.run(t, "--continue", "again")
	if code != 0 || !strings.Contains(stdout, "Still hello.") {
		t.Fatalf("--continue: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	reqs := e.model.ModelRequests("anthropic")
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 (none refused)", len(reqs))
	}
	for _, r := range reqs {
		th, _ := r.JSON()["thinking"].(map[string]any)
		if th["type"] != "enabled" || th["budget_tokens"] != float64(2048) {
			t.Errorf("request without extended thinking: thinking = %v", r.JSON()["thinking"])
		}
	}
}
