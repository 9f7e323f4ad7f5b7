//go:build unix

package proc

import (
	"bufio"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	Hook() // the guard: these tests start groups
	goleak.VerifyTestMain(m)
}

// groupAlive reports whether any process of group pgid is left.
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// waitExited waits for cmd in a goroutine and closes the channel when it
// was reaped.
func waitExited(cmd *exec.Cmd) chan struct{} {
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	return exited
}

func TestReleaseKillsWhatTheLeaderLeftBehind(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 100 & echo $!")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	g, err := Start(cmd, Options{Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Guarded() {
		t.Error("with Hook, the guard watches the group")
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	sleeper, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("leader printed %q", line)
	}
	<-waitExited(cmd)
	if syscall.Kill(sleeper, 0) != nil {
		t.Fatal("the leader's background sleep should still run before Release")
	}
	g.Release()
	deadline := time.Now().Add(5 * time.Second)
	for groupAlive(g.Pid()) {
		if time.Now().After(deadline) {
			t.Fatalf("group %d still has processes after Release", g.Pid())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStopAsksFirstThenKills(t *testing.T) {
	t.Run("a group that ends on SIGTERM ends before the grace period", func(t *testing.T) {
		cmd := exec.Command("sleep", "100")
		g, err := Start(cmd, Options{Grace: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		exited := waitExited(cmd)
		start := time.Now()
		g.Stop(exited)
		<-exited
		g.Release()
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("Stop took %s although sleep ends on SIGTERM", took)
		}
		if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Errorf("sleep ended with %v, want SIGTERM", cmd.ProcessState)
		}
	})
	t.Run("a group that ignores SIGTERM is killed after the grace period", func(t *testing.T) {
		cmd := exec.Command("sh", "-c", `trap "" TERM; echo ready; while :; do sleep 1; done`)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		const grace = 300 * time.Millisecond
		g, err := Start(cmd, Options{Grace: grace})
		if err != nil {
			t.Fatal(err)
		}
		bufio.NewReader(out).ReadString('\n') // the trap is set
		exited := waitExited(cmd)
		start := time.Now()
		g.Stop(exited)
		<-exited
		took := time.Since(start)
		g.Release()
		if took < grace {
			t.Errorf("Stop killed after %s, before the grace period of %s", took, grace)
		}
		if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("shell ended with %v, want SIGKILL", cmd.ProcessState)
		}
	})
}

func TestGatedStartRunsTheCommandAsGiven(t *testing.T) {
	cmd := exec.Command("sh", "-c", `printf '%s|' "$0" "$@"; [ -e /dev/fd/3 ] && echo fd3-open; exit 7`, "zero", "a b", "")
	var out strings.Builder
	cmd.Stdout = &out
	g, err := Start(cmd, Options{Grace: time.Second, Gated: true})
	if err != nil {
		t.Fatal(err)
	}
	<-waitExited(cmd)
	g.Release()
	if got := out.String(); got != "zero|a b||" {
		t.Errorf("output %q: want the arguments unchanged and the gate's fd 3 closed", got)
	}
	if code := cmd.ProcessState.ExitCode(); code != 7 {
		t.Errorf("exit code %d, want the command's 7", code)
	}
}

func TestStartReportsAMissingCommand(t *testing.T) {
	for _, gated := range []bool{false, true} {
		cmd := exec.Command("agentls-no-such-command")
		if _, err := Start(cmd, Options{Gated: gated}); err == nil {
			t.Errorf("gated=%v: starting a missing command succeeded", gated)
		}
	}
}

func TestWithoutHookNothingGuards(t *testing.T) {
	SetHookForTest(false)
	defer SetHookForTest(true)
	cmd := exec.Command("true")
	g, err := Start(cmd, Options{})
	if err != nil {
		t.Fatal(err)
	}
	<-waitExited(cmd)
	g.Release()
	if g.Guarded() {
		t.Error("a group started without Hook claims to be guarded")
	}
}
