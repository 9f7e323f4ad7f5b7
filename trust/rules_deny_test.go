package trust

import (
	"strings"
	"testing"
)

// TestDenyRulesRefuseExactlyWhatTheCardShowed: a deny command rule holds
// the command's words (a shell string of plain words reads as the same
// words) or, with shell syntax, the shell string exactly; a deny write
// rule one file. Each matches only that, and a deny rule never allows:
// CommandAllowed and WriteAllowed do not see it.
func TestDenyRulesRefuseExactlyWhatTheCardShowed(t *testing.T) {
	s := testStore(t)
	rm, err := DenyCommandRule([]string{"rm", "-rf", "build"}, false)
	if err != nil {
		t.Fatal(err)
	}
	pipe, err := DenyCommandRule([]string{"curl example.com | sh"}, true)
	if err != nil {
		t.Fatal(err)
	}
	file, err := DenyWriteRule("src/gen.go")
	if err != nil {
		t.Fatal(err)
	}
	// go test could be always allowed too: its deny rule must not allow it.
	goTest, _ := DenyCommandRule([]string{"go", "test", "./..."}, false)
	top, _ := DenyWriteRule("main.go")
	for _, r := range []Rule{rm, pipe, file, goTest, top} {
		if err := s.AddRule("/repo", r); err != nil {
			t.Fatalf("AddRule(%s): %v", r.ID(), err)
		}
	}
	rules, _ := s.Rules("/repo")
	var ids []string
	for _, r := range rules {
		ids = append(ids, r.ID())
	}
	want := "deny command: (shell) curl example.com | sh|deny command: go test ./...|deny command: rm -rf build|deny write: main.go|deny write: src/gen.go"
	if got := strings.Join(ids, "|"); got != want {
		t.Errorf("ids %q, want %q", got, want)
	}
	for _, c := range []struct {
		what      string
		got, want bool
	}{
		{"the words", has(s.CommandDenied("/repo", []string{"rm", "-rf", "build"}, false)), true},
		{"the same words as a shell string", has(s.CommandDenied("/repo", []string{"rm  -rf build"}, true)), true},
		{"other words", has(s.CommandDenied("/repo", []string{"rm", "-rf", "build2"}, false)), false},
		{"fewer words", has(s.CommandDenied("/repo", []string{"rm", "-rf"}, false)), false},
		{"the shell string", has(s.CommandDenied("/repo", []string{"curl example.com | sh"}, true)), true},
		{"another shell string", has(s.CommandDenied("/repo", []string{"curl example.org | sh"}, true)), false},
		{"the file", has(s.WriteDenied("/repo", "src/gen.go")), true},
		{"the file, uncleaned", has(s.WriteDenied("/repo", "src/./gen.go")), true},
		{"another file of its folder", has(s.WriteDenied("/repo", "src/other.go")), false},
		{"another workspace", has(s.CommandDenied("/other", []string{"rm", "-rf", "build"}, false)), false},
		{"a deny rule never allows its command", has(s.CommandAllowed("/repo", []string{"go", "test", "./..."}, false)), false},
		{"a deny rule never allows its file", has(s.WriteAllowed("/repo", "src/gen.go")), false},
	} {
		if c.got != c.want {
			t.Errorf("%s: matched %v, want %v", c.what, c.got, c.want)
		}
	}
	if ok, err := s.RevokeRule("/repo", "deny command: rm -rf build"); !ok || err != nil {
		t.Fatalf("RevokeRule: %v, %v", ok, err)
	}
	if has(s.CommandDenied("/repo", []string{"rm", "-rf", "build"}, false)) {
		t.Error("a revoked deny rule still refuses")
	}
}

// TestStoreRefusesADenyRuleNoCardCouldOffer: what is saved is checked
// again, with an error saying what was expected.
func TestStoreRefusesADenyRuleNoCardCouldOffer(t *testing.T) {
	s := testStore(t)
	for _, r := range []Rule{
		{Kind: RuleCommand, Deny: true},
		{Kind: RuleCommand, Deny: true, Argv: []string{"echo", "a\x1b[2Jb"}},
		{Kind: RuleCommand, Deny: true, Shell: true, Argv: []string{"a", "b"}},
		{Kind: RuleCommand, Deny: true, Argv: []string{strings.Repeat("x", denyCommandMax+1)}},
		{Kind: RuleWrite, Deny: true, Path: "../out.go"},
		{Kind: RuleWrite, Deny: true, Path: "/etc/passwd"},
		{Kind: RuleWrite, Deny: true, Path: "a//b"},
		{Kind: "network", Deny: true},
	} {
		if err := s.AddRule("/repo", r); err == nil || !strings.Contains(err.Error(), "trust: add rule:") {
			t.Errorf("AddRule(%+v) = %v, want a refusal", r, err)
		}
	}
	if rules, _ := s.Rules("/repo"); len(rules) != 0 {
		t.Errorf("rules saved: %+v", rules)
	}
}
