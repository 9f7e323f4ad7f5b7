package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/model/providers"
)

// TestChatModel is /model in `agentls chat` on a real terminal: without
// a profile it lists them, the current one marked; with one, the next
// turn goes to that profile's wire with the history so far.
func TestChatModel(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	cfg := fmt.Sprintf("[model]\nprovider = \"anthropic\"\nname = \"fake-claude\"\ncontext_window = 200000\nbase_url = %q\n\n[model.profiles.oa]\nprovider = \"openai\"\nname = \"fake-gpt\"\ncontext_window = 200000\nbase_url = %q\n", e.model.URL(), e.model.URL()+"/v1")
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.model.Script(modeltest.Turn{Text: "Claude here."}, modeltest.Turn{Text: "GPT here."})
	term := onTerminal(t, e, "chat", 160, 60)
	term.wait("/help for commands", true)
	term.keys("-l", "hello")
	term.keys("Enter")
	term.wait("Claude here.", true)
	term.keys("-l", "/model")
	term.keys("Enter")
	term.wait("oa               openai-compatible fake-gpt", true)
	term.keys("-l", "/model oa")
	term.keys("Enter")
	term.wait("model: oa (openai-compatible fake-gpt) from the next turn", true)
	term.keys("-l", "and you?")
	term.keys("Enter")
	term.wait("GPT here.", true)
	reqs := e.model.ModelRequests("")
	if len(reqs) != 2 || reqs[0].Format != providers.Messages || reqs[1].Format != providers.ChatCompletions {
		t.Fatalf("requests %d; want one on each wire", len(reqs))
	}
	if got := reqs[1].AssistantTexts(); len(got) != 1 || got[0] != "Claude here." {
		t.Errorf("the history on the second model: %q", got)
	}
	term.keys("C-d")
	term.exitsWith0()
}
