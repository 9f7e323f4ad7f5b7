package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSandboxReadIsTheUsersAlone: the user config's [sandbox] read names
// folders every confined server may read (each server carries them); a
// repository's [sandbox] is ignored with a warning naming file and key;
// an entry that would open the home folder, a secret folder or agentls's
// own state is refused with an error saying why, and the rest is kept.
func TestSandboxReadIsTheUsersAlone(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	tools := filepath.Join(home, "tools", "mcp")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
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
[sandbox]
read = ["~/tools/mcp", "/opt/mcp", "~", "/", "relative/dir", "~/.ssh", "~/.local/state/agentls/sessions", "~/work/.aws", "~/.config"]
[mcp.servers.mine]
command = "x"
`)
	write(WorkspacePath(ws), `
[sandbox]
read = ["/etc"]
[mcp.servers.repo]
command = "x"
`)
	c := Load(user, []string{ws})
	want := []string{tools, "/opt/mcp"}
	if !slices.Equal(c.Sandbox.Read, want) {
		t.Errorf("[sandbox] read = %q, want %q", c.Sandbox.Read, want)
	}
	for _, s := range c.MCP.Servers {
		if !slices.Equal(s.SandboxRead, want) {
			t.Errorf("server %s carries SandboxRead %q, want %q", s.Name, s.SandboxRead, want)
		}
	}
	var diags []string
	for _, d := range c.Diagnostics {
		diags = append(diags, d.String())
	}
	all := strings.Join(diags, "\n")
	for _, w := range []string{
		`"~" would open your whole home folder`,
		`"/" would open your whole home folder`,
		`"relative/dir" is not an absolute path`,
		`"~/.ssh" is or holds ` + filepath.Join(home, ".ssh"),
		`"~/.local/state/agentls/sessions" is or holds ` + filepath.Join(home, ".local", "state", "agentls"),
		`"~/work/.aws": .aws usually holds secrets`,
		`"~/.config" is or holds ` + filepath.Join(home, ".config", "gcloud"),
		WorkspacePath(ws) + `:3: sandbox.read: ignored: only the user config may set this`,
	} {
		if !strings.Contains(all, w) {
			t.Errorf("no diagnostic says %q; got:\n%s", w, all)
		}
	}
	if strings.Contains(strings.Join(c.Sandbox.Read, " "), "/etc") {
		t.Errorf("a repository's [sandbox] read was used: %q", c.Sandbox.Read)
	}
}
