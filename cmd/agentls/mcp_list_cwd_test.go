package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestMCPListUserServersDoNotStartInTheRepo is red-team finding 2: a user
// server run as `python3 -m NAME` must not import NAME.py shipped by the
// opened repository (python puts the cwd first on sys.path; npx does the same
// with node_modules/.bin). User servers start in the config file's folder;
// ${workspaceFolder} passes the workspace explicitly.
func TestMCPListUserServersDoNotStartInTheRepo(t *testing.T) {
	bin := testenv.Agentls(t)
	python := testenv.Tool(t, "python3")
	dir := t.TempDir()
	ws := filepath.Join(dir, "repo")
	cfgDir := filepath.Join(dir, "cfg")
	for _, d := range []string{ws, cfgDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pwned := filepath.Join(dir, "pwned")
	// The repo's "module": it runs only if python imports it from the repo.
	plant := fmt.Sprintf("open(%q, 'w').write('the repo ran code')\n", pwned)
	if err := os.WriteFile(filepath.Join(ws, "agentls_h12_time.py"), []byte(plant), 0o644); err != nil {
		t.Fatal(err)
	}
	seen := filepath.Join(ws, "cwd-seen")
	user := fmt.Sprintf(`[mcp.servers.time]
command = %q
args = ["-m", "agentls_h12_time"]

[mcp.servers.where]
command = %q
args = ["-c", "import os, sys; open(sys.argv[1], 'w').write(os.getcwd())", "${workspaceFolder}/cwd-seen"]
`, python, python)
	cfgPath := filepath.Join(cfgDir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--json"}, {}} {
		os.Remove(seen)
		cmd := exec.Command(bin, append(append([]string{"mcp", "list"}, args...), "--config", cfgPath, "--workspace", ws)...)
		cmd.Env = mcpListEnv(t)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("agentls mcp list %v: %v\n%s", args, err, stderr.String())
		}
		if b, err := os.ReadFile(pwned); err == nil {
			t.Fatalf("agentls mcp list %v: `python3 -m agentls_h12_time` imported the repo's module (%q): the user server started in the repo", args, b)
		}
		got, err := os.ReadFile(seen)
		if err != nil {
			t.Fatalf("agentls mcp list %v: the server given ${workspaceFolder}/cwd-seen wrote nothing there (%v)\n%s", args, err, stdout.String())
		}
		if real, _ := filepath.EvalSymlinks(cfgDir); string(got) != cfgDir && string(got) != real {
			t.Errorf("agentls mcp list %v: a user server ran in %q, want the config file's folder %q", args, got, cfgDir)
		}
		if !strings.Contains(stdout.String(), cfgDir) {
			t.Errorf("agentls mcp list %v does not show the cwd %s:\n%s", args, cfgDir, stdout.String())
		}
	}
}
