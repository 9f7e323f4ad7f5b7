package trust

import (
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/config"
)

func BenchmarkFingerprint(b *testing.B) {
	args := []string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"}
	env := map[string]string{"GITHUB_TOOLSETS": "pull_requests,repos,issues", "NODE_OPTIONS": "", "A": "1"}
	for b.Loop() {
		Fingerprint("docker", args, env, "/home/me/repo")
	}
}

// BenchmarkClassifyCallWithStore is the cost of one policy column cell (or
// one call decision) when an "always allow" store is consulted: it reads
// trust.json each time, so a decision never uses a stale approval.
func BenchmarkClassifyCallWithStore(b *testing.B) {
	store := OpenStore(filepath.Join(b.TempDir(), "trust.json"))
	for _, tool := range []string{"a__x", "b__y", "c__z"} {
		if err := store.AllowAlways(tool, "h"); err != nil {
			b.Fatal(err)
		}
	}
	p := &Policy{Store: store, Rules: []config.PolicyRule{
		{Pattern: "github__*", Action: "ask", Origin: config.User},
		{Pattern: "github__pull_request_read", Action: "allow", Origin: config.User},
		{Pattern: "*", Action: "ask", Origin: config.Workspace},
	}}
	for b.Loop() {
		p.ClassifyCall(ToolInfo{Name: "a__x", DefinitionHash: "h"})
	}
}

func BenchmarkClassifyCommand(b *testing.B) {
	for b.Loop() {
		ClassifyCommand([]string{"git log --oneline -n 20 -- main.go"}, true)
	}
}

func BenchmarkRedactJSON(b *testing.B) {
	doc := []byte(`{"owner":"me","repo":"x","headers":{"Authorization":"Bearer abcdefgh"},"body":"see ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 and more text here","items":[1,2,3,{"token":"t"}]}`)
	for b.Loop() {
		RedactJSON(doc)
	}
}
