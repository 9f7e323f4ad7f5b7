package server

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestUserServersDoNotStartInTheWorkspace is red-team finding 2 through
// serve: on initialized, a user server `python3 -m NAME` must not import
// NAME.py from the opened workspace; a server that asks for
// ${workspaceFolder} in its args gets the workspace root.
func TestUserServersDoNotStartInTheWorkspace(t *testing.T) {
	python := testenv.Tool(t, "python3")
	pwned := filepath.Join(t.TempDir(), "pwned")
	e := newEnv(t, fmt.Sprintf(`[mcp.servers.time]
command = %q
args = ["-m", "agentls_h12_serve_time"]

[mcp.servers.where]
command = %q
args = ["-c", "import os, sys; open(sys.argv[1], 'w').write(os.getcwd())", "${workspaceFolder}/cwd-seen"]
`, python, python))
	writeFile(t, filepath.Join(e.root, "agentls_h12_serve_time.py"), fmt.Sprintf("open(%q, 'w').write('the repo ran code')\n", pwned))
	c := e.start(t)
	c.initialize(e.root, caps(true, false, false))
	c.waitState("time", "failed")
	c.waitState("where", "failed")
	if b, err := os.ReadFile(pwned); err == nil {
		t.Fatalf("on initialized, `python3 -m agentls_h12_serve_time` imported the workspace's module (%q)", b)
	}
	got, err := os.ReadFile(filepath.Join(e.root, "cwd-seen"))
	if err != nil {
		t.Fatalf("the server given ${workspaceFolder}/cwd-seen wrote nothing there: %v", err)
	}
	if dir := filepath.Dir(e.config); string(got) != dir {
		t.Errorf("a user server ran in %q, want the config file's folder %q", got, dir)
	}
}
