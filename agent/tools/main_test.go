package tools

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"
)

// commandHostEnv, when set, makes the test binary a host that runs the
// shell command it names through runProcess and blocks: a stand-in for
// agentls with a command running, for tests that SIGKILL it.
const commandHostEnv = "AGENTLS_TOOLS_TEST_COMMAND_HOST"

// confinedHostEnv is commandHostEnv for a command run as autopilot runs
// one without a card: confined, through the long-lived launcher, with the
// folder it names as the workspace (FOLDER TAB COMMAND).
const confinedHostEnv = "AGENTLS_TOOLS_TEST_CONFINED_HOST"

// helperEnv, in a host, names the program to start as the guard and the
// reapers (proc.UseHelper), as agentls names agentls-sandbox.
const helperEnv = "AGENTLS_TOOLS_TEST_HELPER"

func TestMain(m *testing.M) {
	proc.Hook()    // the guard that reaps command groups after a SIGKILL
	sandbox.Hook() // the launcher of confined commands
	if h := os.Getenv(helperEnv); h != "" {
		proc.UseHelper(func() string { return h })
	}
	if c := os.Getenv(commandHostEnv); c != "" {
		runProcess(context.Background(), []string{"sh", "-c", c}, os.TempDir(), os.Environ(), time.Hour, 1024)
		os.Exit(0)
	}
	if spec := os.Getenv(confinedHostEnv); spec != "" {
		dir, c, _ := strings.Cut(spec, "\t")
		cc, err := confineCommand([]string{"sh", "-c", c}, []string{dir}, os.Environ(), nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		cc.run(context.Background(), dir, time.Hour, 1024)
		os.Exit(0)
	}
	testenv.Main(m)
}
