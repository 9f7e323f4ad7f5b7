package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
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
	// The timeout leaves the shell time to print under load (an approved
	// command starts under a reaper first); the sleeper outlasts it.
	res, err := runProcess(context.Background(), []string{"sh", "-c", "echo before; " + sl + " 100"}, t.TempDir(), nil, 3*time.Second, 1024)
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
// parent-death signal reaches only the shell; the guard must end the rest:
// the host itself re-executed, or the small helper agentls uses
// (agentls-sandbox).
func TestRunCommandGroupDiesWithAgentlsKilled(t *testing.T) {
	for _, guard := range guards(t) {
		t.Run("guard="+guard.name, func(t *testing.T) {
			marker := "agentls-killed-host-" + strings.ReplaceAll(t.Name(), "/", "-")
			sl := sleeper(t, marker)
			guard.killHost(t, marker, sl+" 777 & "+sl+" 778; wait", func() bool { return waitProcesses(t, marker, 2) })
		})
	}
}

// killHost starts a host running command under g, waits until ready, checks
// who guards it, kills the host with SIGKILL and waits until nothing with
// marker in its command line is left.
func (g guard) killHost(t *testing.T, marker, command string, ready func() bool) {
	t.Helper()
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), commandHostEnv+"="+command, helperEnv+"="+g.helper)
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	if !ready() {
		host.Process.Kill()
		host.Wait()
		return
	}
	g.check(t, host.Process.Pid)
	host.Process.Signal(syscall.SIGKILL)
	host.Wait()
	testenv.WaitNoProcesses(t, marker, 10*time.Second)
}

// guard is who guards a host's groups: the host's own executable, or the
// helper it names.
type guard struct {
	name, helper string
	want         string // the executable the guard and reapers must run
}

// guards are the two ways a host is guarded.
func guards(t *testing.T) []guard {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	helper := testenv.SandboxLauncher(t)
	return []guard{{"self", "", self}, {"agentls-sandbox", helper, helper}}
}

// check fails unless the host's guard, and each reaper it started, runs
// g.want.
func (g guard) check(t *testing.T, host int) {
	t.Helper()
	found := 0
	for _, pid := range childrenOf(host) {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		args := strings.Split(string(cmdline), "\x00")
		if len(args) < 2 || (args[1] != "__agentls_guard" && args[1] != "__agentls_reaper") {
			continue
		}
		found++
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); exe != g.want {
			t.Errorf("%s runs %s, want %s", args[1], exe, g.want)
		}
	}
	if found == 0 && runtime.GOOS == "linux" {
		t.Errorf("host %d started no guard", host)
	}
}

// childrenOf lists pid's children (Linux /proc; none elsewhere).
func childrenOf(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			p, _ := strconv.Atoi(e.Name())
			out = append(out, p)
		}
	}
	return out
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
	for _, guard := range guards(t) {
		t.Run("guard="+guard.name, func(t *testing.T) {
			marker := "agentls-daemon-killed-" + strings.ReplaceAll(t.Name(), "/", "-")
			sl := sleeper(t, marker)
			guard.killHost(t, marker, daemonCommand(sl), func() bool {
				return testenv.WaitCommandLine(t, sl+" 778") && testenv.WaitCommandLine(t, sl+" 777")
			})
		})
	}
}
