package server

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

func TestRestartNeverStartsAnUntrustedWorkspaceServer(t *testing.T) {
	e := newEnv(t, "")
	files := filepath.Join(t.TempDir(), "repo-fs-restart-marker")
	writeFile(t, filepath.Join(e.root, ".agentls", "config.toml"), fsServer(t, "repofs", files))
	c := e.start(t)
	c.initialize(e.root, caps(true, false, false)) // the launch card is answered -32601: denied
	c.waitFor("the refusal at start", func(m message) bool {
		return m.Method == "window/logMessage" && strings.Contains(string(m.Params), "'repofs' not started")
	})
	var res struct{ State string }
	err := c.call("agent/mcp/restart", map[string]string{"server": "repofs"}, &res)
	if err == nil && res.State != "needs_approval" {
		t.Errorf("restart of an untrusted workspace server = %q, want needs_approval or an error", res.State)
	}
	if got := c.servers()["repofs"].State; got != "needs_approval" {
		t.Errorf("state after restart = %q, want needs_approval", got)
	}
	if n := len(testenv.ProcessesMatching(files)); n != 0 {
		t.Errorf("%d processes of an untrusted workspace server after restart", n)
	}
}
