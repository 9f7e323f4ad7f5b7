package main

import (
	"fmt"
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

// With extended thinking on, a request's max_tokens (the answer's budget
// plus the thinking's) stays inside what the window leaves after its input,
// as Anthropic requires ("input length and `max_tokens` exceed context
// limit"): a long session near its window is not refused for it.
func TestRunAnthropicThinkingFitsTheWindow(t *testing.T) {
	const window = 16000
	e := newLongEnv(t, "anthropic", fmt.Sprintf("context_window = %d\nthinking = 2048\n", window))
	var refused []string
	e.model.Answer(func(r modeltest.Request) (modeltest.Turn, bool) {
		maxTokens, _ := r.JSON()["max_tokens"].(float64)
		if input := len(r.Body)/4 + 1; input+int(maxTokens) > window {
			msg := fmt.Sprintf("input length and `max_tokens` exceed context limit: %d + %d > %d, decrease input length or `max_tokens` and try again", input, int(maxTokens), window)
			refused = append(refused, fmt.Sprintf("%s (summary request: %v)", msg, isSummaryRequest(r)))
			return modeltest.Turn{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: msg}, true
		}
		if isSummaryRequest(r) {
			return modeltest.Turn{Text: "The user asked to read big.txt many times; it holds numbered lines about a fox."}, true
		}
		return modeltest.Turn{}, false
	})
	e.model.Script(readTurns(12, "I read it 12 times.")...)
	code, out, errOut := e.run(t, "read big.txt twelve times")
	if code != 0 || !strings.Contains(out, "I read it 12 times.") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if len(refused) != 0 {
		t.Errorf("requests refused as input plus max_tokens over the %d-token window:\n%s", window, strings.Join(refused, "\n"))
	}
}
