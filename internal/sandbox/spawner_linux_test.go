package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestSpawnLauncherStaysUnconfined: the long-lived launcher's own process
// is never confined, so no command shares a Landlock domain with it. Each
// command's thread is prepared by a goroutine that locks itself to a
// thread and confines it; a goroutine may run on the main thread once the
// launcher's main goroutine blocks, and the main thread of a Go program
// is never ended with its locked goroutine but parked, confined, for
// good. The process is that thread to the kernel (its pid, its
// /proc/PID/status), so the command whose domain it took could signal
// the launcher, Landlock's scoping notwithstanding (seen in 3 of 80 runs
// of TestSpawnCannotSignalTheLauncher). Whether it happens is the Go
// scheduler's choice for a launcher's first command (here about 1 in 40
// on the old code), so the test starts 200 launchers (agentls-sandbox,
// which starts fast); with the fix no goroutine but the main one ever
// runs on the main thread.
func TestSpawnLauncherStaysUnconfined(t *testing.T) {
	needLandlock(t)
	if err := UseLauncher(testenv.SandboxLauncher(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { UseLauncher("") })
	for i := range 200 {
		f := newFixture(t)
		p := Policy{Read: []string{f.ws, f.outside}}.WithSystem() // a policy of its own: a launcher of its own
		pr, out, err := spawnPiped(p, Cmd{Path: lookPath(t, "sh"), Args: []string{"sh", "-c", `kill -0 $PPID 2>/dev/null && echo SIGNALLED; echo DONE`}, Dir: f.ws, Env: []string{"PATH=/usr/bin:/bin"}})
		if err != nil {
			t.Fatal(err)
		}
		launcher := pr.launcherPid()
		pr.Wait()
		pr.Release()
		if o := out(); Supported().Scoped && strings.Contains(o, "SIGNALLED") {
			t.Errorf("command %d signalled its launcher (Landlock ABI %d scopes signals): %q", i, Supported().ABI, o)
		}
		st, err := os.ReadFile("/proc/" + strconv.Itoa(launcher) + "/status")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"NoNewPrivs:\t0\n", "Seccomp:\t0\n"} {
			if !strings.Contains(string(st), want) {
				t.Errorf("after command %d the launcher's main thread is confined: want %q in its status:\n%s", i, want, st)
			}
		}
	}
}
