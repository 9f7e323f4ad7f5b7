package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"
)

// TestConfinedCommandGroupDiesWithAgentlsKilled: a command autopilot runs
// confined, through the long-lived launcher, leaves a fork behind; the
// host (standing in for agentls) is SIGKILLed while both run. The fork
// and the command are gone: the guard knew the group, and the launcher,
// seeing its socket close, ends it too.
func TestConfinedCommandGroupDiesWithAgentlsKilled(t *testing.T) {
	if s := sandbox.Supported(); !s.Filesystem {
		testenv.Missing(t, "Landlock ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
	marker := "agentls-killed-confined-" + t.Name()
	sl := sleeper(t, marker)
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), confinedHostEnv+"="+filepath.Dir(sl)+"\t"+sl+" 777 & "+sl+" 778; wait")
	host.Stderr = os.Stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitProcesses(t, marker, 2) {
		host.Process.Kill()
		host.Wait()
		return
	}
	host.Process.Signal(syscall.SIGKILL)
	host.Wait()
	testenv.WaitNoProcesses(t, marker, 10*time.Second)
}

// TestConfinedGitRunsNoFsmonitorHook is the second wall behind guardGit's
// check: a repository whose config sets core.fsmonitor (written, say, by
// a parallel call between the check and the run) still runs no hook in a
// card-less git, and neither does a submodule's git.
func TestConfinedGitRunsNoFsmonitorHook(t *testing.T) {
	testenv.Tool(t, "git")
	if s := sandbox.Supported(); !s.Filesystem {
		testenv.Missing(t, "Landlock ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	gitT(t, dir, "init", "-q", "-b", "main")
	gitT(t, dir, "commit", "-q", "--allow-empty", "-m", "top")
	withSubmodule(t, dir, "sub")
	marker := filepath.Join(dir, "pwned")
	gitT(t, dir, "config", "core.fsmonitor", hostileHook(marker))
	gitT(t, filepath.Join(dir, "sub"), "config", "core.fsmonitor", hostileHook(marker))
	env := append(commandEnv(nil), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=status.short", "GIT_CONFIG_VALUE_0=true")
	c, err := confineCommand([]string{"git", "status", "--branch"}, []string{dir}, env)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.run(context.Background(), dir, time.Minute, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Output, "PWNED") || res.ExitCode != 0 {
		t.Fatalf("confined git status ran the repository's core.fsmonitor (exit %d): %q", res.ExitCode, res.Output)
	}
	if !strings.HasPrefix(res.Output, "## main") {
		t.Errorf("confined git status = %q; want the short form the user's GIT_CONFIG_COUNT asked for (its settings kept)", res.Output)
	}
}
