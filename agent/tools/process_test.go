package tools

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testenv"
)

func TestRunCommandReapsTheProcessGroupOnCancel(t *testing.T) {
	marker := "agentls-reap-" + t.Name()
	sl := sleeper(t, marker)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan procResult, 1)
	go func() {
		res, _ := runProcess(ctx, []string{"sh", "-c", sl + " 100 & " + sl + " 100; wait"}, t.TempDir(), nil, time.Hour, 1024)
		done <- res
	}()
	if !waitProcesses(t, marker, 2) {
		cancel()
		<-done
		return
	}
	cancel()
	res := <-done
	if !res.Cancelled {
		t.Errorf("result = %+v, want cancelled", res)
	}
	testenv.WaitNoProcesses(t, marker, 5*time.Second)
}

func TestRunCommandKillsWhatTheLeaderLeftBehind(t *testing.T) {
	marker := "agentls-orphan-" + t.Name()
	sl := sleeper(t, marker)
	res, err := runProcess(context.Background(), []string{"sh", "-c", sl + " 100 & echo started"}, t.TempDir(), nil, time.Hour, 1024)
	if err != nil || res.Output != "started\n" || res.ExitCode != 0 {
		t.Fatalf("res = %+v err %v", res, err)
	}
	testenv.WaitNoProcesses(t, marker, 5*time.Second)
}

func TestRunCommandTimesOut(t *testing.T) {
	marker := "agentls-timeout-" + t.Name()
	sl := sleeper(t, marker)
	res, err := runProcess(context.Background(), []string{"sh", "-c", "echo before; " + sl + " 100"}, t.TempDir(), nil, 200*time.Millisecond, 1024)
	if err != nil || !res.TimedOut || res.Output != "before\n" {
		t.Fatalf("res = %+v err %v, want timed out with the output so far", res, err)
	}
	testenv.WaitNoProcesses(t, marker, 5*time.Second)
}

func TestRunCommandCapsOutput(t *testing.T) {
	res, err := runProcess(context.Background(), []string{"sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x; echo; echo err >&2"}, t.TempDir(), nil, time.Minute, 1000)
	if err != nil || len(res.Output) != 1000 || res.Cut != 100000+1+4-1000 {
		t.Fatalf("output %d bytes, cut %d (err %v); want 1000 kept and the rest counted", len(res.Output), res.Cut, err)
	}
}

// TestRunCommandGroupDiesWithAgentlsKilled: a shell command that leaves
// `sleep &` behind, running when agentls is killed with SIGKILL. The
// parent-death signal reaches only the shell; the guard must end the rest.
func TestRunCommandGroupDiesWithAgentlsKilled(t *testing.T) {
	marker := "agentls-killed-host-" + t.Name()
	sl := sleeper(t, marker)
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), commandHostEnv+"="+sl+" 777 & "+sl+" 778; wait")
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

// needReaper skips where commands run without a reaper (it is Linux
// only: a child subreaper is a Linux feature).
func needReaper(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the reaper that ends detached daemons is Linux only")
	}
	testenv.Tool(t, "setsid")
}

// TestRunCommandDaemonEndsWithIt: a command you approved, unconfined, may
// detach a daemon (setsid works for it); cancelling the command still ends
// the daemon: the command runs under a reaper that kills whatever it
// inherited.
func TestRunCommandDaemonEndsWithIt(t *testing.T) {
	needReaper(t)
	marker := "agentls-daemon-" + t.Name()
	sl := sleeper(t, marker)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan procResult, 1)
	go func() {
		res, _ := runProcess(ctx, []string{"sh", "-c", daemonCommand(sl)}, t.TempDir(), nil, time.Hour, 1024)
		done <- res
	}()
	if !testenv.WaitCommandLine(t, sl+" 778") || !testenv.WaitCommandLine(t, sl+" 777") {
		cancel()
		<-done
		return
	}
	cancel()
	if res := <-done; !res.Cancelled {
		t.Errorf("result = %+v, want cancelled", res)
	}
	testenv.WaitNoProcesses(t, marker, 10*time.Second)
}

// TestRunCommandDaemonEndsWhenItEnds: a command that detaches a daemon
// and exits leaves nothing once its result is in.
func TestRunCommandDaemonEndsWhenItEnds(t *testing.T) {
	needReaper(t)
	marker := "agentls-daemon-" + t.Name()
	sl := sleeper(t, marker)
	res, err := runProcess(context.Background(), []string{"sh", "-c", "( (setsid " + sl + " 777 >/dev/null &) ); " + sl + " 0; echo started"}, t.TempDir(), nil, time.Hour, 1024)
	if err != nil || res.Output != "started\n" || res.ExitCode != 0 {
		t.Fatalf("res = %+v err %v", res, err)
	}
	testenv.WaitNoProcesses(t, marker, 10*time.Second)
}

// TestRunCommandDaemonDiesWithAgentlsKilled: the daemon of a command
// running when agentls is SIGKILLed is gone too.
func TestRunCommandDaemonDiesWithAgentlsKilled(t *testing.T) {
	needReaper(t)
	marker := "agentls-daemon-killed-" + t.Name()
	sl := sleeper(t, marker)
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), commandHostEnv+"="+daemonCommand(sl))
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	if !testenv.WaitCommandLine(t, sl+" 778") || !testenv.WaitCommandLine(t, sl+" 777") {
		host.Process.Kill()
		host.Wait()
		return
	}
	host.Process.Signal(syscall.SIGKILL)
	host.Wait()
	testenv.WaitNoProcesses(t, marker, 10*time.Second)
}
