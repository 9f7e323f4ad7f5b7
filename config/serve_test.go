package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeIsTheUsersAlone: [serve] mcp turns the editor session's MCP
// listener on from the user config; a repository's [serve] is ignored
// with a warning naming the key, and a value that is not a boolean is an
// error that leaves it off.
func TestServeIsTheUsersAlone(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".agentls"), 0o755); err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(dir, "user.toml")
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(user, "[serve]\nmcp = true\n")
	if cfg := Load(user, []string{ws}); !cfg.Serve.MCP {
		t.Errorf("[serve] mcp = true in the user config left it off: %v", cfg.Diagnostics)
	}

	write(user, "")
	write(WorkspacePath(ws), "[serve]\nmcp = true\n")
	cfg := Load(user, []string{ws})
	if cfg.Serve.MCP {
		t.Error("a repository's [serve] mcp = true turned the listener on")
	}
	if !hasDiag(cfg, "serve.mcp", "must not make your editor listen") {
		t.Errorf("no warning for the repository's [serve]: %v", cfg.Diagnostics)
	}

	write(WorkspacePath(ws), "")
	write(user, "[serve]\nmcp = \"yes\"\n")
	cfg = Load(user, []string{ws})
	if cfg.Serve.MCP || !hasDiag(cfg, "serve.mcp", "a boolean") {
		t.Errorf("mcp = \"yes\": on %v, diagnostics %v; want off and an error asking for a boolean", cfg.Serve.MCP, cfg.Diagnostics)
	}
}

func hasDiag(cfg *Config, key, text string) bool {
	for _, d := range cfg.Diagnostics {
		if s := d.String(); strings.Contains(s, key) && strings.Contains(s, text) {
			return true
		}
	}
	return false
}
