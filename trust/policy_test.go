package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/config"
)

func userRule(pattern, action string) config.PolicyRule {
	return config.PolicyRule{Pattern: pattern, Action: action, Origin: config.User, Source: config.Source{File: "/home/u/.config/agentls/config.toml", Line: 12}}
}

func wsRule(pattern, action string) config.PolicyRule {
	return config.PolicyRule{Pattern: pattern, Action: action, Origin: config.Workspace, Source: config.Source{File: "/repo/.agentls/config.toml", Line: 3}}
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

// TestClassifyCall pins every direction of G2: what allows, what asks, what
// denies, and that nothing a server or a repo says can loosen a decision.
func TestClassifyCall(t *testing.T) {
	tests := []struct {
		name  string
		rules []config.PolicyRule
		tool  ToolInfo
		want  Action
	}{
		{"no rule asks", nil, ToolInfo{Name: "fs__read"}, Ask},
		{"exact allow allows", []config.PolicyRule{userRule("fs__read", "allow")}, ToolInfo{Name: "fs__read"}, Allow},
		{"exact rule matches only that name", []config.PolicyRule{userRule("fs__read", "allow")}, ToolInfo{Name: "fs__read_all"}, Ask},
		{"glob allows its prefix", []config.PolicyRule{userRule("github__*", "allow")}, ToolInfo{Name: "github__list_issues"}, Allow},
		{"glob does not match another server", []config.PolicyRule{userRule("github__*", "allow")}, ToolInfo{Name: "gitlab__list_issues"}, Ask},
		{"star allows everything", []config.PolicyRule{userRule("*", "allow")}, ToolInfo{Name: "x__y"}, Allow},
		{"deny refuses", []config.PolicyRule{userRule("fs__write_file", "deny")}, ToolInfo{Name: "fs__write_file"}, Deny},
		{"explicit ask asks", []config.PolicyRule{userRule("*", "allow"), userRule("fs__*", "ask")}, ToolInfo{Name: "fs__read"}, Ask},
		{"exact name beats glob (ask over allow)", []config.PolicyRule{userRule("github__*", "allow"), userRule("github__merge", "ask")}, ToolInfo{Name: "github__merge"}, Ask},
		{"exact name beats glob (allow over deny)", []config.PolicyRule{userRule("github__*", "deny"), userRule("github__read", "allow")}, ToolInfo{Name: "github__read"}, Allow},
		{"longer glob beats shorter glob", []config.PolicyRule{userRule("github__*", "deny"), userRule("github__pull_*", "allow")}, ToolInfo{Name: "github__pull_request_read"}, Allow},
		{"any glob beats star", []config.PolicyRule{userRule("*", "deny"), userRule("fs__*", "allow")}, ToolInfo{Name: "fs__read"}, Allow},
		{"deny beats allow at equal specificity", []config.PolicyRule{userRule("ab*", "allow"), userRule("*cd", "deny")}, ToolInfo{Name: "abcd"}, Deny},
		{"deny beats allow at equal specificity, other order", []config.PolicyRule{userRule("*cd", "deny"), userRule("ab*", "allow")}, ToolInfo{Name: "abcd"}, Deny},
		{"ask beats allow at equal specificity", []config.PolicyRule{userRule("ab*", "allow"), userRule("*cd", "ask")}, ToolInfo{Name: "abcd"}, Ask},
		{"question mark matches one character (a deny must not be missed)", []config.PolicyRule{userRule("*", "allow"), userRule("fs__write_?ile", "deny")}, ToolInfo{Name: "fs__write_file"}, Deny},
		{"character class matches", []config.PolicyRule{userRule("*", "allow"), userRule("fs__[dw]*", "deny")}, ToolInfo{Name: "fs__delete"}, Deny},
		{"glob with a star inside", []config.PolicyRule{userRule("*__delete_*", "deny")}, ToolInfo{Name: "github__delete_repo"}, Deny},
		{"unknown action asks, never allows", []config.PolicyRule{userRule("fs__read", "alow")}, ToolInfo{Name: "fs__read"}, Ask},
		{"action case and spaces are forgiven", []config.PolicyRule{userRule("fs__read", " Allow ")}, ToolInfo{Name: "fs__read"}, Allow},

		{"workspace allow is ignored", []config.PolicyRule{wsRule("*", "allow")}, ToolInfo{Name: "fs__read"}, Ask},
		{"workspace exact allow cannot beat a user glob ask", []config.PolicyRule{userRule("fs__*", "ask"), wsRule("fs__read", "allow")}, ToolInfo{Name: "fs__read"}, Ask},
		{"workspace ask tightens a more specific user allow", []config.PolicyRule{userRule("fs__read", "allow"), wsRule("fs__*", "ask")}, ToolInfo{Name: "fs__read"}, Ask},
		{"workspace deny tightens a user allow", []config.PolicyRule{userRule("*", "allow"), wsRule("fs__write", "deny")}, ToolInfo{Name: "fs__write"}, Deny},
		{"workspace ask cannot loosen a user deny", []config.PolicyRule{userRule("fs__*", "deny"), wsRule("fs__read", "ask")}, ToolInfo{Name: "fs__read"}, Deny},
		{"rule with no origin counts as workspace", []config.PolicyRule{{Pattern: "*", Action: "allow"}}, ToolInfo{Name: "fs__read"}, Ask},

		{"destructiveHint true forces ask over an exact allow", []config.PolicyRule{userRule("fs__delete", "allow")}, ToolInfo{Name: "fs__delete", DestructiveHint: yes()}, Ask},
		{"destructiveHint true forces ask over star allow", []config.PolicyRule{userRule("*", "allow")}, ToolInfo{Name: "fs__delete", DestructiveHint: yes()}, Ask},
		{"destructiveHint true never loosens a deny", []config.PolicyRule{userRule("fs__delete", "deny")}, ToolInfo{Name: "fs__delete", DestructiveHint: yes()}, Deny},
		{"destructiveHint false keeps an allow", []config.PolicyRule{userRule("fs__read", "allow")}, ToolInfo{Name: "fs__read", DestructiveHint: no()}, Allow},
		{"destructiveHint absent keeps an allow (most servers do not annotate)", []config.PolicyRule{userRule("github__merge", "allow")}, ToolInfo{Name: "github__merge"}, Allow},
		{"readOnlyHint grants nothing", nil, ToolInfo{Name: "fs__read", ReadOnlyHint: true}, Ask},
		{"readOnlyHint does not lift a deny", []config.PolicyRule{userRule("fs__*", "deny")}, ToolInfo{Name: "fs__read", ReadOnlyHint: true}, Deny},
		{"readOnlyHint does not lift a workspace ask", []config.PolicyRule{userRule("*", "allow"), wsRule("*", "ask")}, ToolInfo{Name: "fs__read", ReadOnlyHint: true}, Ask},

		{"built-in tools are not decided by mcp policy", []config.PolicyRule{userRule("*", "allow")}, ToolInfo{Name: "run_command", Builtin: true}, Ask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, autopilot := range []bool{false, true} {
				p := &Policy{Rules: tt.rules, Autopilot: autopilot}
				d := p.ClassifyCall(tt.tool)
				if d.Action != tt.want {
					t.Fatalf("autopilot=%v: %s (%s), want %s", autopilot, d.Action, d.Reason, tt.want)
				}
				if d.Reason == "" {
					t.Fatal("no reason")
				}
			}
		})
	}
}

// TestClassifyCallAlwaysAllow pins "always allow": bound to the definition
// hash (the rug pull asks again), beaten by deny, tightened by annotations
// and workspace rules.
func TestClassifyCallAlwaysAllow(t *testing.T) {
	store := testStore(t)
	if err := store.AllowAlways("fs__write", "def1"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		rules  []config.PolicyRule
		tool   ToolInfo
		want   Action
		reason string
	}{
		{"always allow with the same definition allows", nil, ToolInfo{Name: "fs__write", DefinitionHash: "def1"}, Allow, "always allow"},
		{"always allow beats a user ask rule", []config.PolicyRule{userRule("fs__*", "ask")}, ToolInfo{Name: "fs__write", DefinitionHash: "def1"}, Allow, "always allow"},
		{"rug pull: a changed definition asks again", nil, ToolInfo{Name: "fs__write", DefinitionHash: "def2"}, Ask, "changed its definition"},
		{"unknown definition asks", nil, ToolInfo{Name: "fs__write"}, Ask, "changed its definition"},
		{"deny rule beats always allow", []config.PolicyRule{userRule("fs__write", "deny")}, ToolInfo{Name: "fs__write", DefinitionHash: "def1"}, Deny, "denied by"},
		{"workspace ask beats always allow", []config.PolicyRule{wsRule("fs__*", "ask")}, ToolInfo{Name: "fs__write", DefinitionHash: "def1"}, Ask, "workspace"},
		{"destructiveHint beats always allow", nil, ToolInfo{Name: "fs__write", DefinitionHash: "def1", DestructiveHint: yes()}, Ask, "destructive"},
		{"another tool with the same hash is not allowed", nil, ToolInfo{Name: "fs__delete", DefinitionHash: "def1"}, Ask, "no [mcp.policy] entry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := (&Policy{Rules: tt.rules, Store: store}).ClassifyCall(tt.tool)
			if d.Action != tt.want || !strings.Contains(d.Reason, tt.reason) {
				t.Fatalf("%s (%s), want %s with a reason saying %q", d.Action, d.Reason, tt.want, tt.reason)
			}
		})
	}
}

func TestClassifyCallCorruptStoreAllowsNothingExtra(t *testing.T) {
	store := testStore(t)
	if err := store.AllowAlways("fs__write", "def1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(store.Path(), []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := (&Policy{Store: store}).ClassifyCall(ToolInfo{Name: "fs__write", DefinitionHash: "def1"})
	if d.Action != Ask || !strings.Contains(d.Reason, "could not be read") {
		t.Fatalf("%s (%s), want ask saying the store could not be read", d.Action, d.Reason)
	}
	d = (&Policy{Store: store, Rules: []config.PolicyRule{userRule("fs__read", "allow")}}).ClassifyCall(ToolInfo{Name: "fs__read"})
	if d.Action != Allow {
		t.Fatalf("a user allow rule stopped working with a corrupt store: %s (%s)", d.Action, d.Reason)
	}
}

func TestClassifyCallReasonsReadable(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	rule := config.PolicyRule{Pattern: "github__*", Action: "allow", Origin: config.User,
		Source: config.Source{File: filepath.Join(home, ".config", "agentls", "config.toml"), Line: 12}}
	d := (&Policy{Rules: []config.PolicyRule{rule}}).ClassifyCall(ToolInfo{Name: "github__list"})
	want := `allowed by [mcp.policy] "github__*" = "allow" in ~/.config/agentls/config.toml:12`
	if d.Reason != want {
		t.Fatalf("reason %q, want %q", d.Reason, want)
	}
	d = (*Policy)(nil).ClassifyCall(ToolInfo{Name: "x__y"})
	if d.Action != Ask || !strings.Contains(d.Reason, "no [mcp.policy] entry matches x__y") {
		t.Fatalf("nil policy: %s (%s)", d.Action, d.Reason)
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*", "", true},
		{"*", "abc", true},
		{"a*", "a", true},
		{"a*", "ba", false},
		{"*a", "ba", true},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "acb", false},
		{"ab*ba", "aba", false},
		{"abc", "abc", true},
		{"abc", "abcd", false},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"fs__[rw]*", "fs__write", true},
		{"fs__[rw]*", "fs__delete", false},
		{"[", "[", false},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.name); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}
