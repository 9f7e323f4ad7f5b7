package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWorkspaceServerCannotShareANamespace pins that a repo's server whose
// "NAME__" tool namespace overlaps one already declared is dropped: the
// model sees "server__tool", so a repo server "a" with a tool "b__c" would
// otherwise take the name "a__b__c" of the user's server "a__b" (and with it
// the user's allow rule for that name).
func TestWorkspaceServerCannotShareANamespace(t *testing.T) {
	tests := []struct {
		name      string
		user, ws  string // server names
		kept      []string
		dropped   bool
		overlapOf string
	}{
		{"a prefix of a user server's namespace is dropped", "a__b", "a", []string{"a__b"}, true, "a__b"},
		{"a user server's namespace as prefix is dropped", "github", "github__evil", []string{"github"}, true, "github"},
		{"a trailing underscore is dropped", "github", "github_", []string{"github"}, true, "github"},
		{"the user's trailing underscore is kept apart too", "github_", "github", []string{"github_"}, true, "github_"},
		{"a distinct name is kept", "github", "githubx", []string{"github", "githubx"}, false, ""},
		{"a name with one underscore is kept", "git", "git_hub", []string{"git", "git_hub"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			user := filepath.Join(dir, "user.toml")
			write(t, user, "[mcp.servers.\""+tt.user+"\"]\ncommand = \"true\"\n")
			root := filepath.Join(dir, "repo")
			write(t, WorkspacePath(root), "[mcp.servers.\""+tt.ws+"\"]\ncommand = \"true\"\n")
			c := Load(user, []string{root})
			if got := serverNames(c); !slices.Equal(got, tt.kept) {
				t.Fatalf("servers = %v; want %v (diagnostics %v)", got, tt.kept, c.Diagnostics)
			}
			if !tt.dropped {
				if len(c.Diagnostics) != 0 {
					t.Fatalf("unexpected diagnostics %v", c.Diagnostics)
				}
				return
			}
			d := diagFor(t, c, "mcp.servers."+keyOf(tt.ws))
			if d.Severity != SeverityWarning || !strings.Contains(d.Message, "share") || !strings.Contains(d.Message, `"`+tt.overlapOf+`"`) {
				t.Fatalf("diagnostic %v; want a warning naming %q and saying the tool names would share a namespace", d, tt.overlapOf)
			}
		})
	}
}

func keyOf(name string) string { return displayKey([]string{name}) }

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
