package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/model/providers"
)

// TestRunModelAndModeStayWithTheSession: `agentls run --continue --mode
// plan --model oa` switches the session; the next `agentls run
// --continue`, another process, continues it on that profile's wire and
// in plan mode. An unknown profile is a usage error naming the ones that
// exist.
func TestRunModelAndModeStayWithTheSession(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	cfg := fmt.Sprintf(`[model]
provider = "anthropic"
name = "fake-claude"
context_window = 200000
base_url = %q
api_key_env = "AGENTLS_TEST_KEY"

[model.profiles.oa]
provider = "openai"
name = "fake-gpt"
context_window = 200000
base_url = %q
`, e.model.URL(), e.model.URL()+"/v1")
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.model.Script(modeltest.Turn{Text: "first"}, modeltest.Turn{Text: "second"}, modeltest.Turn{Text: "third"})
	if code, _, stderr := e.run(t, "one"); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	if code, _, stderr := e.run(t, "--continue", "--mode", "plan", "--model", "oa", "two"); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	if code, _, stderr := e.run(t, "--continue", "three"); code != 0 {
		t.Fatalf("third run: exit %d: %s", code, stderr)
	}
	reqs := e.model.ModelRequests("")
	if len(reqs) != 3 {
		t.Fatalf("%d model requests; want 3", len(reqs))
	}
	if reqs[0].Format != providers.Messages || reqs[0].Model() != "fake-claude" {
		t.Errorf("first turn went to %s %s; want the default profile's Messages wire", reqs[0].Format, reqs[0].Model())
	}
	for i, r := range reqs[1:] {
		if r.Format != providers.ChatCompletions || r.Model() != "fake-gpt" || !strings.Contains(r.System(), "plan mode") {
			t.Errorf("turn %d went to %s %s (plan mode told: %v); want profile oa's chat completions wire in plan mode", i+2, r.Format, r.Model(), strings.Contains(r.System(), "plan mode"))
		}
	}
	if got := reqs[2].AssistantTexts(); len(got) != 2 || got[0] != "first" || got[1] != "second" {
		t.Errorf("the third turn's history: %q; want both earlier answers", got)
	}

	code, _, stderr := e.run(t, "--continue", "--model", "collector", "four")
	if code != 2 || !strings.Contains(stderr, `unknown model profile "collector"`) || !strings.Contains(stderr, `"oa"`) {
		t.Errorf("unknown profile: exit %d: %s", code, stderr)
	}
}
