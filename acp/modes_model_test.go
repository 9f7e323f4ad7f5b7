package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestTheModelConfigOptionThroughTheSDKClient: the official ACP SDK
// client sees a "model" session config option (category model) listing
// the user config's profiles; a turn with a tool call on the default
// profile (the chat completions wire), session/set_config_option model to
// "claude", and the next turn goes to the Messages wire with the history
// carried over (the fake refuses a history the API would); a
// config_option_update says so, an unknown profile is an error, and a
// later agentls acp process that loads the session offers it on claude.
func TestTheModelConfigOptionThroughTheSDKClient(t *testing.T) {
	w := newWorld(t, "")
	cfg, _ := os.ReadFile(w.config)
	extra := fmt.Sprintf("\n[model.profiles.claude]\nprovider = \"anthropic\"\nname = \"fake-claude\"\ncontext_window = 200000\nbase_url = %q\nthinking = 2048\nmax_tokens = 4000\n", w.model.URL())
	if err := os.WriteFile(w.config, append(cfg, extra...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.root, "a.txt"), []byte("hello from a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.model.Script(
		modeltest.Turn{Thinking: "OPENAI-THOUGHT-7", ToolCalls: []modeltest.ToolCall{{ID: "call_r1", Name: "read_file", Input: `{"path":"a.txt"}`}}},
		modeltest.Turn{Text: "It says hello from a."},
		modeltest.Turn{Text: "Claude agrees."},
	)
	p := plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "prompt", Text: "what does a.txt say?", Answers: []string{"allow_once"}},
		{Op: "setConfigOption", ConfigID: "model", Text: "claude"},
		{Op: "prompt", Text: "do you agree?"},
		{Op: "setConfigOption", ConfigID: "model", Text: "collector"},
	}}
	out := w.run(p)
	var started struct{ ConfigOptions []configOption }
	if err := json.Unmarshal(out.Steps[1].Result, &started); err != nil {
		t.Fatal(err)
	}
	if len(started.ConfigOptions) != 2 {
		t.Fatalf("session/new answered %s", out.Steps[1].Result)
	}
	m := started.ConfigOptions[1]
	if m.ID != "model" || m.Category != "model" || m.CurrentValue != "default" || len(m.Options) != 2 || m.Options[0].Value != "default" || m.Options[1].Value != "claude" || m.Options[1].Name != "claude (fake-claude)" {
		t.Errorf("the model option %+v; want default and claude, on default", m)
	}
	for i := 2; i <= 4; i++ {
		if e := out.Steps[i].Error; e != nil {
			t.Fatalf("step %d (%s): %+v", i, out.Steps[i].Op, e)
		}
	}
	var set setConfigOptionResponse
	json.Unmarshal(out.Steps[3].Result, &set)
	if len(set.ConfigOptions) != 2 || set.ConfigOptions[1].CurrentValue != "claude" {
		t.Errorf("set_config_option answered %s", out.Steps[3].Result)
	}
	said := false
	for _, u := range out.Updates {
		for _, o := range u.Update.ConfigOptions {
			said = said || u.Update.SessionUpdate == updateConfigOption && o.ID == "model" && o.CurrentValue == "claude"
		}
	}
	if !said {
		t.Error("no config_option_update said the model is claude")
	}
	if e := out.Steps[5].Error; e == nil || !strings.Contains(e.Message, `unknown model profile "collector"`) {
		t.Errorf("an unknown profile: %+v", e)
	}
	oa, an := w.model.ModelRequests("openai"), w.model.ModelRequests("anthropic")
	if len(oa) != 2 || len(an) != 1 {
		t.Fatalf("%d chat completions and %d Messages requests; want 2 and 1", len(oa), len(an))
	}
	if rs := an[0].ToolResults(); len(rs) != 1 || !strings.Contains(rs[0].Content, "hello from a") {
		t.Errorf("the tool turn on the Messages wire: %+v", rs)
	}
	if body := string(an[0].Body); strings.Contains(body, "reasoning_content") || strings.Contains(body, "OPENAI-THOUGHT-7") {
		t.Errorf("the other model's reasoning reached Claude:\n%s", body)
	}

	var sid string
	var created struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(out.Steps[1].Result, &created)
	sid = created.SessionID
	again := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "load", Cwd: w.root, SessionID: sid}}})
	var loaded struct{ ConfigOptions []configOption }
	if err := json.Unmarshal(again.Steps[1].Result, &loaded); err != nil {
		t.Fatalf("session/load: %s %+v", again.Steps[1].Result, again.Steps[1].Error)
	}
	if len(loaded.ConfigOptions) != 2 || loaded.ConfigOptions[1].CurrentValue != "claude" {
		t.Errorf("after a restart session/load answered %s; want the session on claude", again.Steps[1].Result)
	}
}
