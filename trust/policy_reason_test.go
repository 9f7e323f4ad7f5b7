package trust

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/config"
)

// sprintfRuleText is how rule reasons were built before they were
// concatenated: the wording people read must not change.
func sprintfRuleText(r config.PolicyRule) string {
	src := r.Source
	s := src.String()
	if home, err := os.UserHomeDir(); err == nil && home != "" && src.File != "" {
		if rel, err := filepath.Rel(home, src.File); err == nil && !strings.HasPrefix(rel, "..") {
			src.File = filepath.Join("~", rel)
			s = src.String()
		}
	}
	return fmt.Sprintf("[mcp.policy] %q = %q in %s", r.Pattern, r.Action, s)
}

func TestRuleTextKeepsTheSprintfWording(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfg := filepath.Join(home, ".config", "agentls", "config.toml")
	tests := []struct {
		name string
		rule config.PolicyRule
	}{
		{"a rule under home is shown under ~", config.PolicyRule{Pattern: "fs__*", Action: "allow", Source: config.Source{File: cfg, Line: 4, Col: 2}}},
		{"a rule outside home keeps its path", config.PolicyRule{Pattern: "fs__read", Action: "deny", Source: config.Source{File: "/repo/.agentls/config.toml", Line: 3}}},
		{"a rule with no source says (default)", config.PolicyRule{Pattern: "*", Action: "ask"}},
		{"quotes and backslashes are escaped", config.PolicyRule{Pattern: `a"b\c`, Action: `al"low`, Source: config.Source{File: cfg}}},
		{"control characters and non-ASCII are escaped as %q does", config.PolicyRule{Pattern: "x\n\t\u00e9\u200b", Action: "ask\x00", Source: config.Source{File: cfg, Line: 1}}},
		{"invalid UTF-8 is escaped as %q does", config.PolicyRule{Pattern: "bad\xff\xfe", Action: "\xc3", Source: config.Source{File: cfg, Line: 9}}},
		{"a file beside home is not under ~", config.PolicyRule{Pattern: "p", Action: "allow", Source: config.Source{File: home + "-other/config.toml", Line: 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := ruleText(tc.rule), sprintfRuleText(tc.rule); got != want {
				t.Errorf("ruleText = %q, want %q", got, want)
			}
		})
	}
	t.Setenv("HOME", "")
	r := config.PolicyRule{Pattern: "p", Action: "allow", Source: config.Source{File: cfg, Line: 2}}
	if got, want := ruleText(r), sprintfRuleText(r); got != want || strings.Contains(got, "~") {
		t.Errorf("with no home: ruleText = %q, want %q", got, want)
	}
}

// TestClassifyCallReasonsKeepTheirWording checks every reason ClassifyCall
// builds against its Sprintf wording.
func TestClassifyCallReasonsKeepTheirWording(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	store := OpenStore(filepath.Join(t.TempDir(), "trust.json"))
	for _, name := range []string{"fs__kept", "fs__changed"} {
		if err := store.AllowAlways(name, "h1"); err != nil {
			t.Fatal(err)
		}
	}
	allow, deny, odd := userRule("fs__open", "allow"), wsRule("fs__open", "deny"), userRule("fs__odd", "Sometimes")
	p := &Policy{Store: store, Rules: []config.PolicyRule{allow, deny, odd, userRule("fs__hinted", "allow")}}
	tests := []struct {
		name string
		tool ToolInfo
		want string
	}{
		{"a built-in tool names the classifier", ToolInfo{Name: "run_command", Builtin: true},
			fmt.Sprintf("%s is a built-in tool: [mcp.policy] does not apply; the command classifier and autopilot decide it", "run_command")},
		{"no matching rule asks by default", ToolInfo{Name: "fs__none"},
			fmt.Sprintf("no [mcp.policy] entry matches %s, so it asks (the default for every MCP tool)", "fs__none")},
		{"a workspace rule tightens a user allow", ToolInfo{Name: "fs__open"},
			fmt.Sprintf("%s the workspace's %s (workspace rules may only tighten)", "denied by", sprintfRuleText(deny))},
		{"an unknown action asks", ToolInfo{Name: "fs__odd"},
			fmt.Sprintf("asks: %s has the unknown action %q (expected allow, ask or deny)", sprintfRuleText(odd), "Sometimes")},
		{"always allow with the same definition allows", ToolInfo{Name: "fs__kept", DefinitionHash: "h1"},
			fmt.Sprintf("allowed: you chose \"always allow\" for %s and its definition has not changed since", "fs__kept")},
		{"always allow with a changed definition asks", ToolInfo{Name: "fs__changed", DefinitionHash: "h2"},
			fmt.Sprintf("asks: %s was always-allowed, but the server has changed its definition (description or input schema) since", "fs__changed")},
		{"a destructive hint turns an allow into ask", ToolInfo{Name: "fs__hinted", DestructiveHint: yes()},
			fmt.Sprintf("the server marks %s destructive (destructiveHint), which always asks, even though it would be %s", "fs__hinted",
				fmt.Sprintf("%s %s", "allowed by", sprintfRuleText(userRule("fs__hinted", "allow"))))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.ClassifyCall(tc.tool).Reason; got != tc.want {
				t.Errorf("reason %q, want %q", got, tc.want)
			}
		})
	}
}
