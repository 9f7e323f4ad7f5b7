package sandbox

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testenv"
)

// TestSpawnLauncherDeathEndsItsCommands: when the long-lived launcher dies
// its running command dies with it, Wait says so, and the next Spawn
// starts another launcher.
func TestSpawnLauncherDeathEndsItsCommands(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	p := Policy{Read: []string{f.ws, f.outside}}.WithSystem() // a policy of its own: its own launcher
	sl, marker := markedSleep(t, f.ws)
	pr, out, err := spawnPiped(p, Cmd{Path: sl, Args: []string{sl, "100"}, Dir: f.ws})
	if err != nil {
		t.Fatal(err)
	}
	enc := mustKey(t, p)
	spawners.Lock()
	z := spawners.m[enc]
	spawners.Unlock()
	if z == nil {
		t.Fatal("no launcher for the policy")
	}
	z.cmd.Process.Kill()
	if code := pr.Wait(); code != -1 {
		t.Errorf("command of a killed launcher: exit %d, want -1", code)
	}
	pr.Release()
	out()
	testenv.WaitNoProcesses(t, marker, 5*time.Second)
	got, code := spawnConfined(t, p, Cmd{Path: lookPath(t, "echo"), Args: []string{"echo", "AGAIN"}, Dir: f.ws})
	if code != 0 || got != "AGAIN\n" {
		t.Errorf("after the launcher died: %q exit %d, want AGAIN", got, code)
	}
}

// spawnerCPU is the CPU time the long-lived launcher for p has used so far
// (0 when none runs), from /proc/PID/stat.
func spawnerCPU(b testing.TB, p Policy) time.Duration {
	key, err := json.Marshal(p)
	if err != nil {
		b.Fatal(err)
	}
	spawners.Lock()
	z := spawners.m[string(key)]
	spawners.Unlock()
	if z == nil {
		return 0
	}
	st, err := os.ReadFile("/proc/" + strconv.Itoa(z.cmd.Process.Pid) + "/stat")
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command name (which may hold spaces): utime and
	// stime are the 12th and 13th, in clock ticks (100 a second).
	f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))
	ut, _ := strconv.Atoi(f[11])
	sys, _ := strconv.Atoi(f[12])
	return time.Duration(ut+sys) * 10 * time.Millisecond
}

func mustKey(t *testing.T, p Policy) string {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSpawnIdleLauncherEnds: a launcher with nothing to run ends after
// its idle time (its folder removed, the process reaped), and the next
// Spawn for that policy starts another.
func TestSpawnIdleLauncherEnds(t *testing.T) {
	needLandlock(t)
	was := spawnerIdle
	spawnerIdle = 100 * time.Millisecond
	t.Cleanup(func() { spawnerIdle = was })
	f := newFixture(t)
	p := Policy{Read: []string{f.ws, f.secret}}.WithSystem() // a policy of its own
	if out, code := spawnConfined(t, p, Cmd{Path: lookPath(t, "echo"), Args: []string{"echo", "ONE"}, Dir: f.ws}); code != 0 || out != "ONE\n" {
		t.Fatalf("first command: %q exit %d", out, code)
	}
	key := mustKey(t, p)
	spawners.Lock()
	z := spawners.m[key]
	spawners.Unlock()
	if z == nil {
		t.Fatal("no launcher for the policy")
	}
	pid := z.cmd.Process.Pid
	// Ended, reaped (its pid gone) and its folder removed.
	for i := 0; ; i++ {
		_, err := os.Stat(z.root)
		if os.IsNotExist(err) && syscall.Kill(pid, 0) == syscall.ESRCH {
			break
		}
		if i == 500 {
			t.Fatalf("the idle launcher %d was not ended and reaped, or its folder %s is still there", pid, z.root)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if out, code := spawnConfined(t, p, Cmd{Path: lookPath(t, "echo"), Args: []string{"echo", "TWO"}, Dir: f.ws}); code != 0 || out != "TWO\n" {
		t.Errorf("after the idle launcher ended: %q exit %d", out, code)
	}
}

// TestSpawnStopEndsAStoppedLaunchersCommand: the launcher reports when a
// command ended; one that is stopped (SIGSTOP: on Landlock ABI < 6 a
// confined command may send it to its launcher) or stuck never does, and
// run_command's cancel or timeout would wait for it forever. Stop gives up
// on the launcher after the grace period and ends it, so Wait returns.
func TestSpawnStopEndsAStoppedLaunchersCommand(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	sl, marker := markedSleep(t, f.ws)
	pr, _, err := spawnPiped(f.readOnly(), Cmd{Path: lookPath(t, "sh"), Args: []string{"sh", "-c", sl + " 100"}, Dir: f.ws, Env: []string{"PATH=/usr/bin:/bin"}, Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { pr.Wait(); close(exited) }()
	for i := 0; len(testenv.ProcessesMatching(marker)) < 1; i++ {
		if i == 1000 {
			t.Fatal("the sleep never ran")
		}
		time.Sleep(10 * time.Millisecond)
	}
	launcher := pr.launcherPid()
	if launcher <= 1 {
		t.Fatalf("launcher pid %d", launcher)
	}
	if err := syscall.Kill(launcher, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(launcher, syscall.SIGCONT)
	stopped := make(chan struct{})
	go func() { pr.Stop(exited); close(stopped) }()
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Fatal("Wait never returned: the stopped launcher never reported the end, and nothing gave up on it")
	}
	<-stopped
	pr.Release()
	testenv.WaitNoProcesses(t, marker, 5*time.Second)
}

// TestSpawnWithOneSchedulerSlot: the long-lived launcher forks with
// vfork, and the forking thread keeps its Go scheduler slot until the
// child has exec'd; the child's setpgid waits for an answer meanwhile. The
// answer comes from the group keeper, another process, so commands start
// even when the launcher's Go runtime has a single slot (GOMAXPROCS=1),
// where an answer from one of its own goroutines could never run.
func TestSpawnWithOneSchedulerSlot(t *testing.T) {
	needLandlock(t)
	was := spawnerEnv
	spawnerEnv = []string{"GOMAXPROCS=1"}
	t.Cleanup(func() { spawnerEnv = was })
	was2 := firstReplyTimeout
	firstReplyTimeout = 10 * time.Second
	t.Cleanup(func() { firstReplyTimeout = was2 })
	f := newFixture(t)
	p := Policy{Read: []string{f.ws, f.outside, f.secret}}.WithSystem() // a policy of its own: a launcher of its own
	for i := range 20 {
		out, code := spawnConfined(t, p, Cmd{Path: lookPath(t, "echo"), Args: []string{"echo", "RAN"}, Dir: f.ws})
		if code != 0 || out != "RAN\n" {
			t.Fatalf("command %d under a launcher with GOMAXPROCS=1: %q exit %d", i, out, code)
		}
	}
}
