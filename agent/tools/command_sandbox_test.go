package tools

import (
	"os"
	"os/exec"
	"path/filepath"
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
