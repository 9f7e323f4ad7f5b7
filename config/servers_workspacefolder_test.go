package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestUserServerCwdAndWorkspaceFolder: a user server runs in its config
// file's folder unless it sets cwd; ${workspaceFolder} in args, env and cwd
// is the first workspace root, and a "$" in that root stays literal when env
// values expand at spawn time.
func TestUserServerCwdAndWorkspaceFolder(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "my$HOME repo")
	cfgDir := filepath.Join(dir, "cfg")
	for _, d := range []string{ws, cfgDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	user := filepath.Join(cfgDir, "config.toml")
	writeTestFile(t, user, `[mcp.servers.plain]
command = "python3"
args = ["-m", "mcp_server_time", "$literal"]

[mcp.servers.explicit]
command = "python3"
args = ["--root=${workspaceFolder}", "${workspaceFolder}/x"]
env = { WS = "${workspaceFolder}", BOTH = "${workspaceFolder}:${HOME_FOR_TEST:-none}", KEEP = "$${workspaceFolder}" }
cwd = "${workspaceFolder}/sub"

[mcp.servers.relative]
command = "python3"
cwd = "state"
`)
	writeTestFile(t, filepath.Join(ws, ".agentls", "config.toml"), `[mcp.servers.repo]
command = "node"
args = ["${workspaceFolder}"]
`)
	c := Load(user, []string{ws})
	if len(c.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", c.Diagnostics)
	}
	plain := serverNamed(t, c, "plain")
	if plain.Cwd != cfgDir || plain.WorkspaceRoot != ws || !slices.Equal(plain.Args, []string{"-m", "mcp_server_time", "$literal"}) {
		t.Errorf("plain: cwd %q root %q args %q; want the config file's folder %q, never the workspace", plain.Cwd, plain.WorkspaceRoot, plain.Args, cfgDir)
	}
	ex := serverNamed(t, c, "explicit")
	if ex.Cwd != filepath.Join(ws, "sub") || !slices.Equal(ex.Args, []string{"--root=" + ws, ws + "/x"}) {
		t.Errorf("explicit: cwd %q args %q; want ${workspaceFolder} = %q", ex.Cwd, ex.Args, ws)
	}
	env, err := ex.ExpandedEnv(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	if env["WS"] != ws || env["BOTH"] != ws+":none" || env["KEEP"] != "${workspaceFolder}" {
		t.Errorf("explicit env = %q; want WS=%q, BOTH=%q, KEEP literal", env, ws, ws+":none")
	}
	if rel := serverNamed(t, c, "relative"); rel.Cwd != filepath.Join(cfgDir, "state") {
		t.Errorf("relative: cwd %q; a user server's relative cwd resolves against its config file's folder", rel.Cwd)
	}
	if repo := serverNamed(t, c, "repo"); repo.Cwd != ws || !slices.Equal(repo.Args, []string{ws}) {
		t.Errorf("repo: cwd %q args %q; a workspace server runs in its root and gets it as ${workspaceFolder}", repo.Cwd, repo.Args)
	}
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
