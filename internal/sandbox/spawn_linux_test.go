package sandbox

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
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
