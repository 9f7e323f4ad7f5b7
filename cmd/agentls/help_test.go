package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestEverySubcommandAnswersHelp runs the real binary with --help, -h and
// `help NAME` for every command of the table: each prints its usage, its
// arguments and an example on stdout and exits 0, whatever else it is
// given (mcp --help was "unknown subcommand"; version --help and acp
// --help exited 2).
func TestEverySubcommandAnswersHelp(t *testing.T) {
	bin := testenv.Agentls(t)
	for _, c := range subcommands {
		words := strings.Fields(c.name)
		for _, args := range [][]string{
			append(append([]string{}, words...), "--help"),
			append(append([]string{}, words...), "-h"),
			append(append([]string{}, words...), "--config", "/nonexistent.toml", "--help"),
			append([]string{"help"}, words...),
		} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				cmd := exec.Command(bin, args...)
				cmd.Dir = t.TempDir()
				cmd.Env = append(os.Environ(), "AGENTLS_CONFIG=/nonexistent.toml", "HOME="+t.TempDir())
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					t.Fatalf("exit %d, stderr %q, stdout %q; want exit 0", ee.ExitCode(), stderr.String(), stdout.String())
				} else if err != nil {
					t.Fatal(err)
				}
				out := stdout.String()
				for _, want := range []string{"usage: agentls " + c.usage + "\n", "\narguments:\n", "\nexample:\n  "} {
					if !strings.Contains(out, want) {
						t.Errorf("stdout %q lacks %q", out, want)
					}
				}
				if !strings.Contains(out, "\n  agentls ") && !strings.Contains(c.example, "agentls") {
					t.Errorf("the example %q does not run agentls", c.example)
				}
			})
		}
	}
}

// TestHelpListsEveryCommand: the overview names each command's synopsis.
func TestHelpListsEveryCommand(t *testing.T) {
	o := overview()
	for _, c := range subcommands {
		if !isGroup(c.name) && !strings.Contains(o, "agentls "+c.usage) {
			t.Errorf("agentls help does not list %q:\n%s", c.usage, o)
		}
	}
}
