package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestMain removes the agentls these tests built and checks no goroutine
// outlived them.
func TestMain(m *testing.M) { testenv.Main(m) }

func TestUsageErrorsSayWhatWasWrongAndWhatIsExpected(t *testing.T) {
	bin := testenv.Agentls(t)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // a part of what stdout must carry
		stderr string // a part of what stderr must carry
	}{
		{"version prints the version", []string{"version"}, 0, "agentls ", ""},
		{"help prints the usage", []string{"help"}, 0, "agentls run [--json] [--config FILE] [--session ID | --continue] [--mode MODE] [--model PROFILE] [--rewind TURN] \"prompt\"", ""},
		{"version takes no argument", []string{"version", "x"}, 2, "", `agentls version: unexpected argument "x" (usage: agentls version)`},
		{"mcp needs a subcommand", []string{"mcp"}, 2, "", "agentls mcp: missing subcommand (expected list, trust, revoke, login, logout, serve or client-metadata)"},
		{"mcp names an unknown subcommand", []string{"mcp", "frob"}, 2, "", `agentls mcp: unknown subcommand "frob" (expected list, trust, revoke, login, logout, serve or client-metadata)`},
		{"unknown command", []string{"frob"}, 2, "", `agentls: unknown command "frob"`},
		{"mcp list -h is a help request, not an error", []string{"mcp", "list", "-h"}, 0, "usage: agentls mcp list", ""},
		{"doctor -h is a help request, not an error", []string{"doctor", "-h"}, 0, "usage: agentls doctor", ""},
		{"run needs a prompt", []string{"run"}, 2, "", "agentls run: no prompt (usage: agentls run"},
		{"run rejects unknown flags", []string{"run", "--bogus", "x"}, 2, "", "flag provided but not defined: -bogus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Dir = t.TempDir()
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("agentls %v: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
					tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}
