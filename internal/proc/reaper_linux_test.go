package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// markedSleep is a link to sleep whose path names the test, so the
// process table shows what the test started.
func markedSleep(t *testing.T) string {
	t.Helper()
	real, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep on PATH")
	}
	p := filepath.Join(t.TempDir(), "sleep-reaper-"+strings.ReplaceAll(t.Name(), "/", "-"))
	if err := os.Symlink(real, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// running lists the live pids whose command line contains marker.
func running(marker string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(b), marker) {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
			continue // a zombie is gone already
		}
		var pid int
		for _, c := range e.Name() {
			pid = pid*10 + int(c-'0')
		}
		out = append(out, pid)
	}
	return out
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for i := 0; !ok(); i++ {
		if i == 3000 {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// daemonScript detaches a daemon (setsid(1) in a subshell of a subshell:
// the marked sleep 300 is orphaned in a session of its own, out of the
// group), then runs on as sleep 301.
func daemonScript(sl string) string {
	return "( (setsid " + sl + " 300 &) ); exec " + sl + " 301"
}

// TestReaperEndsADetachedDaemon: a command started with Reap that
// detaches a daemon leaves nothing once the group is stopped, even when
// the command ignores SIGTERM (the reaper kills everything before the
// group's SIGKILL would take it too).
func TestReaperEndsADetachedDaemon(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid(1)")
	}
	for _, tc := range []struct{ name, script string }{
		{"stopped", daemonScript(markedSleep(t))},
		{"ignoring SIGTERM", "trap '' TERM; " + daemonScript(markedSleep(t))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sl := strings.Fields(tc.script[strings.Index(tc.script, "setsid ")+7:])[0]
			cmd := exec.Command("sh", "-c", tc.script)
			g, err := Start(cmd, Options{Grace: 600 * time.Millisecond, Reap: true})
			if err != nil {
				t.Fatal(err)
			}
			exited := waitExited(cmd)
			// Both sleeps themselves, not the shell or reaper naming them.
			waitFor(t, "the command and its daemon run", func() bool {
				return len(running(sl+"\x00300\x00")) == 1 && len(running(sl+"\x00301\x00")) == 1
			})
			g.Stop(exited)
			<-exited
			g.Release()
			waitFor(t, "nothing of the command is left", func() bool { return len(running(sl)) == 0 })
		})
	}
}

// TestReaperEndsTheDaemonWhenTheCommandEnds: a command that detaches a
// daemon and exits leaves nothing once it was waited for.
func TestReaperEndsTheDaemonWhenTheCommandEnds(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid(1)")
	}
	sl := markedSleep(t)
	cmd := exec.Command("sh", "-c", "( (setsid "+sl+" 300 &) ); "+sl+" 0")
	g, err := Start(cmd, Options{Grace: time.Second, Reap: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the command: %v", err)
	}
	// The reaper exits only once nothing is left below it: nothing to wait for.
	if left := running(sl); len(left) != 0 {
		t.Errorf("left running after the command was waited for: %v", left)
	}
	g.Release()
}

// TestReaperKeepsTheCommandsStatus: the reaper ends as the command did.
func TestReaperKeepsTheCommandsStatus(t *testing.T) {
	run := func(script string) *os.ProcessState {
		cmd := exec.Command("sh", "-c", script)
		g, err := Start(cmd, Options{Grace: time.Second, Reap: true})
		if err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		g.Release()
		return cmd.ProcessState
	}
	if st := run("exit 3"); st.ExitCode() != 3 {
		t.Errorf("exit 3 under the reaper: %v", st)
	}
	st := run("kill -TERM $$")
	if ws := st.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("killed by SIGTERM under the reaper: %v", st)
	}
	if st := run("echo $0 >/dev/null"); st.ExitCode() != 0 {
		t.Errorf("exit 0 under the reaper: %v", st)
	}
}
