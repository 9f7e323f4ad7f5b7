package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fronts present what the core decided; they never decide trust.
// Of the packages where trust is decided and kept (trust: the store, the
// policy, fingerprints; mcp: servers and their calls; agent/tools: every
// tool's gate; agent/session and agent/prompt: what the model is told)
// a front may use exactly these: display helpers, the editor-facing
// Workspace contract, and the read-only fields of what the core hands
// back. Package agent's own gate (call.go, approvals.go, rules.go) is
// unexported, so the compiler keeps it out of a front's reach; the rest of
// agent, wire and config are the fronts' to use.
var frontMayUse = map[string]string{
	"github.com/agentls/agentls/trust.Redact":      "hides secrets in what a front logs or shows",
	"github.com/agentls/agentls/trust.Visible":     "escapes a one-line name for display",
	"github.com/agentls/agentls/trust.VisibleText": "escapes multi-line text for display",
	"github.com/agentls/agentls/trust.ShellQuote":  "shows an argv as it would be typed",

	"github.com/agentls/agentls/agent/tools.Workspace":           "what a front implements for the editor",
	"github.com/agentls/agentls/agent/tools.VersionedBuffers":    "a Workspace that knows buffer versions",
	"github.com/agentls/agentls/agent/tools.Snapshot":            "a file as an edit was computed from it",
	"github.com/agentls/agentls/agent/tools.Snapshot.Exists":     "",
	"github.com/agentls/agentls/agent/tools.Snapshot.Text":       "",
	"github.com/agentls/agentls/agent/tools.Snapshot.Version":    "",
	"github.com/agentls/agentls/agent/tools.ErrFileChanged":      "what a Workspace's WriteFile wraps",
	"github.com/agentls/agentls/agent/tools.ErrNotOpen":          "what a Workspace's WriteFile wraps",
	"github.com/agentls/agentls/agent/tools.ToolNameFromContext": "labels an editor edit with its tool",
	"github.com/agentls/agentls/agent/tools.RefusedRoot":         "says why a folder cannot be a root",
	"github.com/agentls/agentls/agent/tools.RefusedRootMessage":  "",
	"github.com/agentls/agentls/agent/tools.FirstLine":           "cuts an echoed prompt to a title",

	"github.com/agentls/agentls/agent/prompt.Range":           "the selection an agent/run carries",
	"github.com/agentls/agentls/agent/prompt.Range.StartLine": "",
	"github.com/agentls/agentls/agent/prompt.Range.StartChar": "",
	"github.com/agentls/agentls/agent/prompt.Range.EndLine":   "",
	"github.com/agentls/agentls/agent/prompt.Range.EndChar":   "",

	// What Core.Servers-like answers carry, read for display.
	"github.com/agentls/agentls/mcp.ServerInfo.Name":         "",
	"github.com/agentls/agentls/mcp.ServerInfo.Origin":       "",
	"github.com/agentls/agentls/mcp.ServerInfo.State":        "",
	"github.com/agentls/agentls/mcp.ServerInfo.Error":        "",
	"github.com/agentls/agentls/mcp.ServerInfo.StderrTail":   "",
	"github.com/agentls/agentls/mcp.ServerInfo.Command":      "",
	"github.com/agentls/agentls/mcp.ServerInfo.URL":          "",
	"github.com/agentls/agentls/mcp.ServerInfo.Sandbox":      "",
	"github.com/agentls/agentls/mcp.ServerInfo.Tools":        "",
	"github.com/agentls/agentls/mcp.ServerInfo.SchemaTokens": "",

	"github.com/agentls/agentls/mcp.ClientMetadataDocument": "prints the OAuth client document a user hosts; decides nothing",
}

var (
	fronts     = []string{"./server", "./acp", "./cmd/agentls", "./mcpserve"}
	mechanisms = []string{
		"github.com/agentls/agentls/trust",
		"github.com/agentls/agentls/mcp",
		"github.com/agentls/agentls/agent/tools",
		"github.com/agentls/agentls/agent/session",
		"github.com/agentls/agentls/agent/prompt",
	}
)

func TestFrontsNeverDecideTrust(t *testing.T) {
	uses, err := Uses(RepoRoot(), fronts, mechanisms)
	if err != nil {
		t.Fatal(err)
	}
	if len(uses) == 0 {
		t.Fatal("the fronts use nothing of the mechanism packages: the check is reading the wrong packages")
	}
	for _, name := range SortedKeys(uses) {
		if _, ok := frontMayUse[name]; !ok {
			t.Errorf("%s: a front uses %s: a front presents what the core decided and goes through package agent to ask or to decide (allowed: frontMayUse in this file)", uses[name], name)
		}
	}
}

// The check itself, on a made-up module: a method called on a value, a
// field read, a function and an alias's target must all be seen.
func TestUsesSeesMethodsFieldsAndAliases(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	write("trust/trust.go", "package trust\n\ntype Store struct{ Path string }\n\nfunc Open() *Store { return &Store{} }\n\nfunc (s *Store) Save(rule string) error { return nil }\n\nfunc Visible(s string) string { return s }\n")
	write("core/core.go", "package core\n\nimport \"example.com/m/trust\"\n\ntype Store = trust.Store\n\nfunc TheStore() *Store { return trust.Open() }\n")
	write("front/front.go", "package front\n\nimport (\n\t\"example.com/m/core\"\n\t\"example.com/m/trust\"\n)\n\nfunc F() string {\n\ts := core.TheStore()\n\t_ = s.Save(\"x\")\n\treturn trust.Visible(s.Path)\n}\n")
	write("front/front_test.go", "package front\n\nimport \"example.com/m/trust\"\n\nvar _ = trust.Open\n")
	uses, err := Uses(dir, []string{"./front"}, []string{"example.com/m/trust"})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(SortedKeys(uses), " ")
	if want := "example.com/m/trust.Store.Path example.com/m/trust.Store.Save example.com/m/trust.Visible"; got != want {
		t.Errorf("Uses = %s, want %s (the test file's trust.Open must not count)", got, want)
	}
}

// "Always" answers are kept by the gate that offered the card (package
// agent's Core.keep, through tools.Keep), never by a tool or a front: no
// tool can save a rule its card did not offer, and there is one place to
// read what an "always" keeps.
func TestOnlyTheGateKeepsAnAlwaysAnswer(t *testing.T) {
	keeping := []string{
		"github.com/agentls/agentls/trust.Store.AddRule",
		"github.com/agentls/agentls/trust.Store.AllowAlways",
	}
	uses, err := Uses(RepoRoot(), append([]string{"./agent/tools", "./agent/session", "./agent/prompt", "./mcp/..."}, fronts...), []string{"github.com/agentls/agentls/trust"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range keeping {
		if at, ok := uses[name]; ok {
			t.Errorf("%s: %s is called outside package agent's gate: return a tools.Keep with the card instead", at, name)
		}
	}
	inAgent, err := Uses(RepoRoot(), []string{"./agent"}, []string{"github.com/agentls/agentls/trust"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range keeping {
		if _, ok := inAgent[name]; !ok {
			t.Errorf("package agent does not call %s: the gate keeps nothing, or the check reads the wrong package", name)
		}
	}
}
