package server

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCodeActions(t *testing.T) {
	text := "package main\n\n// agent: add error handling\nfunc main() {}\n"
	diag := map[string]any{"range": map[string]any{"start": map[string]int{"line": 3, "character": 0}, "end": map[string]int{"line": 3, "character": 4}},
		"severity": 1, "source": "compiler", "message": "main redeclared"}
	// agentls's own approval diagnostic: the agent cannot "fix" a question
	// it asked, and Helix would list that quickfix above "Allow once".
	own := map[string]any{"range": map[string]any{"start": map[string]int{"line": 3, "character": 0}, "end": map[string]int{"line": 3, "character": 0}},
		"severity": 2, "source": "agentls", "code": "approval", "message": "agentls: approval needed: fs · write_file"}
	rng := func(l1, c1, l2, c2 int) map[string]any {
		return map[string]any{"start": map[string]int{"line": l1, "character": c1}, "end": map[string]int{"line": l2, "character": c2}}
	}
	tests := []struct {
		name        string
		rng         map[string]any
		diagnostics []any
		trigger     int
		want        []string
	}{
		{name: "an empty range on a plain line offers nothing", rng: rng(0, 0, 0, 0), want: nil},
		{name: "a selection offers it as the prompt", rng: rng(0, 0, 0, 7), want: []string{"agentls: Run selection as prompt"}},
		{name: "an agent: directive offers to run it", rng: rng(2, 0, 2, 0), want: []string{`agentls: Run "add error handling"`}},
		{name: "the client's diagnostics offer a fix", rng: rng(3, 0, 3, 0), diagnostics: []any{diag}, want: []string{"agentls: Fix with agent"}},
		{name: "agentls's own approval diagnostic offers no fix", rng: rng(3, 0, 3, 0), diagnostics: []any{own}, want: nil},
		{name: "a fix carries only the diagnostics that are not agentls's own", rng: rng(3, 0, 3, 0), diagnostics: []any{own, diag}, want: []string{"agentls: Fix with agent"}},
		{name: "automatic requests get only approvals (none wait)", rng: rng(2, 0, 2, 5), diagnostics: []any{diag}, trigger: 2, want: nil},
	}
	e := newEnv(t, "")
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	doc := openDoc(t, c, e.root, "main.go", text)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := map[string]any{"diagnostics": tt.diagnostics}
			if tt.diagnostics == nil {
				ctx["diagnostics"] = []any{}
			}
			if tt.trigger != 0 {
				ctx["triggerKind"] = tt.trigger
			}
			var actions []codeAction
			c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]string{"uri": doc}, "range": tt.rng, "context": ctx}, &actions)
			got := actionTitles(actions)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("titles = %q, want %q", got, tt.want)
			}
			for _, a := range actions {
				if a.Title != "agentls: Fix with agent" && a.Kind != "source" {
					t.Errorf("%q has kind %q, want source", a.Title, a.Kind)
				}
				if a.Command == nil || a.Command.Command != "agentls.run" {
					t.Errorf("%q carries %+v, want an agentls.run command", a.Title, a.Command)
				}
				if a.Title == "agentls: Fix with agent" {
					raw, _ := json.Marshal(a.Command.Arguments)
					if a.Kind != "quickfix" || !strings.Contains(string(raw), "main redeclared") {
						t.Errorf("fix action = kind %q, args %s; want quickfix carrying the diagnostics", a.Kind, raw)
					}
					own, _ := json.Marshal(a.Diagnostics)
					if strings.Contains(string(raw), "approval needed") || strings.Contains(string(own), "approval needed") {
						t.Errorf("fix action carries agentls's approval diagnostic: args %s, diagnostics %s", raw, own)
					}
				}
			}
		})
	}
}

func TestClientsWithoutCodeActionLiteralsGetCommands(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.initialize(e.root, map[string]any{})
	doc := openDoc(t, c, e.root, "main.go", "// agent: explain\n")
	var cmds []command
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]string{"uri": doc},
		"range":   map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}},
		"context": map[string]any{"diagnostics": []any{}}}, &cmds)
	// A client without a plugin is offered the other modes too (control.go).
	if len(cmds) != 4 || cmds[0].Command != "agentls.run" || cmds[0].Title != `agentls: Run "explain"` || cmds[1].Command != "agentls.setMode" {
		t.Errorf("commands = %+v, want one agentls.run, then the three other modes", cmds)
	}
}
