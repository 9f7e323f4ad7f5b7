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

// fakeLine is what a hostile string tries to draw on the user's terminal:
// a line of the list that is not there (after a newline, or after an
// escape that moves the cursor up and clears the line).
const fakeLine = "  command  /usr/bin/true"

// TestMCPListAndDoctorEscapeWhatARepositoryOrServerWrote: `agentls mcp
// list` printed a repository server's cwd and env names as written, so a
// cwd holding "\n" or "\x1b[1A\x1b[2K" drew a fake command line and hid
// the real one. Every string a repository's config or a server wrote (cwd,
// env and header names, url, error, stderr, tool names) is shown escaped,
// in mcp list and in doctor: no control character, escape sequence or
// bidi override reaches the terminal.
func TestMCPListAndDoctorEscapeWhatARepositoryOrServerWrote(t *testing.T) {
	bin := testenv.Agentls(t)
	fault := testenv.GoBinary(t, "./internal/faultserver")
	dir := t.TempDir()
	// The folder an archive unpacked into is named by the archive.
	ws := filepath.Join(dir, "repo\x1b[2K\r"+fakeLine)
	os.MkdirAll(filepath.Join(ws, ".agentls"), 0o755)
	repo := fmt.Sprintf(`[mcp.servers.repo]
command = %q
cwd = "sub\n%s\u001b[1A\u001b[2K"
env = { "A\u001b[2KB" = "x", "C\nD" = "y" }
`, fault, fakeLine)
	if err := os.WriteFile(filepath.Join(ws, ".agentls", "config.toml"), []byte(repo), 0o644); err != nil {
		t.Fatal(err)
	}
	user := fmt.Sprintf(`[mcp.servers.broken]
command = %q
args = ["-stderr", "bad\u001b[2J\r%s\u202egnp.exe", "-exit-at-once", "3"]

[mcp.servers.odd]
command = %q
args = ["-tool", "t\u001b[31mred"]
`, fault, fakeLine, fault)
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"mcp", "list", "--config", cfgPath, "--workspace", ws},
		{"doctor", "--config", cfgPath, "--workspace", ws},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Env = mcpListEnv(t)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.Run() // doctor exits 1 for the broken server
		got := out.String()
		if strings.ContainsAny(got, "\x1b\r\u202e") {
			t.Errorf("agentls %s prints a control character or bidi override a repository or server wrote:\n%q", args[0], got)
		}
		for _, line := range strings.Split(got, "\n") {
			if strings.TrimSpace(line) == strings.TrimSpace(fakeLine) {
				t.Errorf("agentls %s draws the fake line %q from a string a repository or server wrote:\n%s", args[0], fakeLine, got)
			}
		}
		if !strings.Contains(got, `\x1b`) {
			t.Errorf("agentls %s does not show the hostile strings escaped:\n%s", args[0], got)
		}
	}
}
