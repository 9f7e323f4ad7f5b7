package model

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
)

// TestAnthropicThinkingSendsWhatTheAPIRequires: with [model] thinking the
// request turns extended thinking on with the budget, max_tokens above it
// (the answer's own budget added), no temperature; the signed thinking of a
// tool turn goes back, which modeltest checks as the API does.
func TestAnthropicThinkingSendsWhatTheAPIRequires(t *testing.T) {
	s := modeltest.New(t)
	s.Script(
		modeltest.Turn{Thinking: "I should read a.txt.", ToolCalls: []modeltest.ToolCall{{Name: "read_file", Input: `{"path":"a.txt"}`}}},
		modeltest.Turn{Text: "It says hello."},
	)
	r, err := Resolve(config.Model{Provider: "anthropic", Name: "claude-sonnet-4-5", BaseURL: s.URL(), APIKeyEnv: "K", MaxTokens: 4000, Thinking: 2048},
		func(string) string { return "k" })
	if err != nil {
		t.Fatal(err)
	}
	p, err := Open(r, "k", &http.Client{})
	if err != nil {
		t.Fatal(err)
	}
	var reasoning strings.Builder
	history := []Message{userText("what does a.txt say?")}
	first, _, err := stream(t, p, Request{Messages: history, OnReasoning: func(d string) { reasoning.WriteString(d) }})
	if err != nil {
		t.Fatal(err)
	}
	if reasoning.String() != "I should read a.txt." {
		t.Errorf("streamed reasoning %q", reasoning.String())
	}
	if _, _, err := stream(t, p, Request{Messages: continueWith(history, first)}); err != nil {
		t.Fatalf("the tool turn's follow-up: %v", err)
	}
	for _, req := range s.ModelRequests("anthropic") {
		m := req.JSON()
		th, _ := m["thinking"].(map[string]any)
		if th["type"] != "enabled" || th["budget_tokens"] != float64(2048) || m["max_tokens"] != float64(6048) {
			t.Errorf("thinking %v, max_tokens %v: want enabled with 2048, and 2048+4000", m["thinking"], m["max_tokens"])
		}
		if _, ok := m["temperature"]; ok {
			t.Errorf("temperature sent with thinking on: %v", m["temperature"])
		}
	}
}

func TestThinkingOffTheAnthropicWireIsAnError(t *testing.T) {
	_, err := Resolve(config.Model{Provider: "deepseek", Thinking: 2048}, func(string) string { return "k" })
	if err == nil || !strings.Contains(err.Error(), "[model] thinking is the extended thinking of Anthropic's Messages wire") {
		t.Fatalf("err = %v", err)
	}
}

func TestAnthropicThinkingBlocksDroppedFailTheToolTurn(t *testing.T) {
	// The fake refuses what the API refuses: the check above would pass
	// against a server that checked nothing.
	s := modeltest.New(t)
	s.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{Name: "read_file", Input: `{}`}}}, modeltest.Turn{Text: "x"})
	p := newAnthropic(s.URL(), "claude-sonnet-4-5", "k", "K", 4000, &http.Client{})
	p.thinking = 2048
	history := []Message{userText("go")}
	first, _, err := stream(t, p, Request{Messages: history})
	if err != nil {
		t.Fatal(err)
	}
	var kept []Block
	for _, b := range first.Content {
		if b.Type != "thinking" {
			kept = append(kept, b)
		}
	}
	first.Content = kept
	_, _, err = stream(t, p, Request{Messages: continueWith(history, first)})
	if err == nil || !strings.Contains(err.Error(), "a final `assistant` message must start with a thinking block") {
		t.Fatalf("err = %v, want the API's refusal of a tool turn without its thinking", err)
	}
}
