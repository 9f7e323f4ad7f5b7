package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPServeHTTPAsksOnItsTerminal: `agentls mcp serve --http` on a
// real terminal prints where it listens, the token file (0600) and a
// config to paste, never the token; the official SDK's client connects
// with the token, and its calls' cards are asked on that terminal,
// naming the client: an accepted propose_edit writes, a declined
// run_command does not run.
func TestMCPServeHTTPAsksOnItsTerminal(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	hello := filepath.Join(e.ws, "hello.txt")
	if err := os.WriteFile(hello, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := serveOnTerminal(t, e, "claude-code")
	st, err := os.Stat(s.tokenFile)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v (mode %v), want 0600", s.tokenFile, err, st.Mode().Perm())
	}
	if strings.Contains(s.screen, s.token) {
		t.Errorf("the terminal shows the token:\n%s", s.screen)
	}
	if !strings.Contains(s.screen, "claude mcp add --transport http agentls "+s.url) {
		t.Errorf("no Claude Code command to paste:\n%s", s.screen)
	}

	edit := s.callAsync("propose_edit", map[string]any{"path": "hello.txt", "old_text": "hello", "new_text": "HELLO"})
	screen := s.term.wait("[N] deny:", false)
	if !strings.Contains(screen, "claude-code (MCP, HTTP") || !strings.Contains(screen, "Edit "+hello) {
		t.Errorf("the card does not name the client and the file:\n%s", screen)
	}
	s.term.keys("y", "Enter")
	if r := <-edit; r.isErr {
		t.Errorf("accepted propose_edit = %q", r.text)
	}
	if b, _ := os.ReadFile(hello); string(b) != "HELLO\n" {
		t.Errorf("after the accepted edit hello.txt is %q", b)
	}

	cmd := s.callAsync("run_command", map[string]any{"command": "touch ran.txt"})
	s.term.wait("touch ran.txt", true)
	s.term.keys("n", "Enter")
	if r := <-cmd; !r.isErr || !strings.Contains(r.text, "denied") {
		t.Errorf("declined run_command = %+v", r)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "ran.txt")); !os.IsNotExist(err) {
		t.Errorf("the declined command ran")
	}
}
