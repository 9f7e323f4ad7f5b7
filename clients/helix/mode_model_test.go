package helix_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/model/providers"
)

// TestHelixModelByCodeAction, in real Helix: a task with a tool call on
// the default profile (chat completions); the code action menu offers the
// config's other model profile, "agentls: Model: claude" switches the
// commands' session (agentls says so), and the next task goes to the
// Messages wire with the first task's tool turn carried over.
func TestHelixModelByCodeAction(t *testing.T) {
	w := startHelixConfig(t, map[string]string{"main.go": original}, `
[model.profiles.claude]
provider = "anthropic"
name = "fake-claude"
base_url = "{{model}}"
`,
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_h1", Name: "read_file", Input: `{"path":"main.go"}`}}},
		modeltest.Turn{Text: "Read main.go first."},
		modeltest.Turn{Text: "Claude continues."},
	)
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "add a function Sum`), 30*time.Second)
	w.scr.waitFor(regexp.MustCompile(`Read main\.go first\.`), 20*time.Second, "the first task's summary")
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Model: claude \(fake-claude\)`), 30*time.Second)
	w.scr.waitFor(regexp.MustCompile(`model: claude \(fake-claude\)`), 15*time.Second, "agentls's message that the model changed")
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "add a function Sum`), 30*time.Second)
	w.scr.waitFor(regexp.MustCompile(`Claude continues\.`), 20*time.Second, "the second task's summary")
	reqs := waitRequests(t, w.model, 3, 20*time.Second)
	if reqs[0].Format != providers.ChatCompletions || reqs[2].Format != providers.Messages || reqs[2].Model() != "fake-claude" {
		t.Fatalf("formats %s, %s, %s (%s); want chat completions, then the Messages wire for claude", reqs[0].Format, reqs[1].Format, reqs[2].Format, reqs[2].Model())
	}
	if rs := reqs[2].ToolResults(); len(rs) != 1 || !strings.Contains(rs[0].Content, "package main") {
		t.Errorf("the first task's tool turn on the Messages wire: %+v", rs)
	}
	quit(t, w.scr)
}
