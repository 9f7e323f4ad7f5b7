package server

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// TestModeAndRulesByCodeAction is Helix's way to the mode and the rules:
// the code actions offer every other mode and forgetting each saved rule;
// running their commands changes what agent/status says and what the
// rules are, with a message saying so; a task's progress title names the
// session's mode.
func TestModeAndRulesByCodeAction(t *testing.T) {
	e := newEnv(t, "")
	store := trust.OpenStore(filepath.Join(e.state, "trust.json"))
	r, _ := trust.CommandRule([]string{"make", "check"}, false)
	if err := store.AddRule(e.root, r); err != nil {
		t.Fatal(err)
	}
	e.model.Script(modeltest.Turn{Text: "planned"})
	c := e.start(t)
	plain := caps(false, false, true)
	delete(plain, "experimental") // a client without a plugin: Helix
	c.initialize(e.root, plain)
	doc := openDoc(t, c, e.root, "main.go", "package main\n")
	actions := func() map[string]*command {
		var as []codeAction
		c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]string{"uri": doc},
			"range":   map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}},
			"context": map[string]any{"diagnostics": []any{}}}, &as)
		out := map[string]*command{}
		for _, a := range as {
			out[a.Title] = a.Command
		}
		return out
	}
	got := actions()
	plan := got["agentls: Mode: Plan (read-only) (now Ask)"]
	forget := got["agentls: Forget rule: command: make check"]
	if plan == nil || forget == nil || got["agentls: Mode: Ask (now Ask)"] != nil || len(got) != 4 {
		t.Fatalf("code actions %v: want the three other modes and the rule", keys(got))
	}
	var m wire.ModeResult
	c.mustCall("workspace/executeCommand", map[string]any{"command": plan.Command, "arguments": plan.Arguments}, &m)
	if m.Mode != wire.ModePlan {
		t.Fatalf("agentls.setMode = %+v", m)
	}
	var st wire.StatusResult
	c.mustCall("agent/status", map[string]any{}, &st)
	if st.Mode != wire.ModePlan {
		t.Errorf("agent/status after the code action = %s", st.Mode)
	}
	c.waitFor("the mode's message", func(m message) bool {
		return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "mode: Plan (read-only)")
	})
	if _, ok := actions()["agentls: Mode: Ask (now Plan (read-only))"]; !ok {
		t.Errorf("after the switch the actions are %v", keys(actions()))
	}
	c.mustCall("workspace/executeCommand", map[string]any{"command": forget.Command, "arguments": forget.Arguments}, nil)
	if rules, _ := store.Rules(e.root); len(rules) != 0 {
		t.Errorf("the rule is still saved: %+v", rules)
	}
	var run struct{ TaskID string }
	c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.run", "arguments": []any{map[string]any{"prompt": "plan something"}}}, &run)
	begin := c.waitFor("the task's progress begin", func(m message) bool {
		return m.Method == "$/progress" && strings.Contains(string(m.Params), `"kind":"begin"`)
	})
	var p struct {
		Value struct{ Title string } `json:"value"`
	}
	json.Unmarshal(begin.Params, &p)
	if p.Value.Title != "agentls [plan]" {
		t.Errorf("progress title %q, want agentls [plan]", p.Value.Title)
	}
}

func keys(m map[string]*command) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
