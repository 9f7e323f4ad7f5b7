package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxKeys: a repository's server is confined to reading the
// workspace unless it says otherwise, the user's own runs unconfined
// unless it opts in, and a value that cannot be honoured (a misspelt mode,
// network on an unconfined server) keeps the server from starting.
func TestSandboxKeys(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.toml")
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".agentls"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(user, `
[mcp.servers.plain]
command = "x"
[mcp.servers.optin]
command = "x"
sandbox = "workspace-read"
network = true
[mcp.servers.typo]
command = "x"
sandbox = "workspace-only"
[mcp.servers.netonly]
command = "x"
network = false
`)
	write(WorkspacePath(ws), `
[mcp.servers.repo]
command = "x"
[mcp.servers.loose]
command = "x"
sandbox = "none"
[mcp.servers.writer]
command = "x"
sandbox = "workspace-write"
network = true
`)
	c := Load(user, []string{ws})
	for name, want := range map[string]struct {
		mode    string
		network bool
		err     string
	}{
		"plain":   {mode: SandboxNone},
		"optin":   {mode: SandboxWorkspaceRead, network: true},
		"typo":    {mode: SandboxNone, err: `unknown sandbox "workspace-only"`},
		"netonly": {mode: SandboxNone, err: "network applies only to a confined server"},
		"repo":    {mode: SandboxWorkspaceRead},
		"loose":   {mode: SandboxNone},
		"writer":  {mode: SandboxWorkspaceWrite, network: true},
	} {
		s := serverNamed(t, c, name)
		if s.SandboxMode() != want.mode || s.Network != want.network {
			t.Errorf("%s: sandbox %q network %v, want %q %v", name, s.SandboxMode(), s.Network, want.mode, want.network)
		}
		if want.err == "" && s.Err != "" || !strings.Contains(s.Err, want.err) {
			t.Errorf("%s: Err = %q, want %q", name, s.Err, want.err)
		}
	}
}
