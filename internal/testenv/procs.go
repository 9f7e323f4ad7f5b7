package testenv

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Process is one row of the process table.
type Process struct {
	PID, PPID, PGID int
	Cmdline         string
}

// Processes reads /proc. Zombies and kernel threads are left out.
func Processes() []Process {
	entries, _ := os.ReadDir("/proc")
	var out []Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// comm may hold spaces and parens: fields start after the last ')'.
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if len(cmdline) == 0 {
			continue
		}
		out = append(out, Process{PID: pid, PPID: ppid, PGID: pgid,
			Cmdline: strings.TrimRight(strings.ReplaceAll(string(cmdline), "\x00", " "), " ")})
	}
	return out
}

// ProcessesMatching lists live processes whose command line contains marker.
func ProcessesMatching(marker string) []Process {
	var out []Process
	self := os.Getpid()
	for _, p := range Processes() {
		if p.PID != self && strings.Contains(p.Cmdline, marker) {
			out = append(out, p)
		}
	}
	return out
}

// WaitNoProcesses fails the test when a process whose command line contains
// marker is still alive after the grace period. Give every spawned server a
// unique marker (an argument or a temp dir path) to use this.
func WaitNoProcesses(t testing.TB, marker string, grace time.Duration) {
	t.Helper()
	deadline := time.Now().Add(grace)
	for {
		left := ProcessesMatching(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				t.Errorf("process survived: pid %d ppid %d: %s", p.PID, p.PPID, p.Cmdline)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Sleeper is a link to sleep whose path carries marker, so the process
// table shows which processes a test started.
func Sleeper(t testing.TB, marker string) string {
	t.Helper()
	real := Tool(t, "sleep")
	p := filepath.Join(t.TempDir(), "sleep-"+marker)
	if err := os.Symlink(real, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// WaitProcesses waits until n processes match marker (at most 30 s). It
// only reports (t.Errorf), so goroutines other than the test's may call it.
func WaitProcesses(t testing.TB, marker string, n int) bool {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(ProcessesMatching(marker)) < n {
		if time.Now().After(deadline) {
			t.Errorf("%d processes matching %q never appeared", n, marker)
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// WaitCommandLine waits until a process runs whose whole command line is
// cmdline (at most 30 s), not one that only names it (a shell whose script
// starts it), and reports whether one did.
func WaitCommandLine(t testing.TB, cmdline string) bool {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !Running(cmdline) {
		if time.Now().After(deadline) {
			t.Errorf("no process ran %q", cmdline)
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// Running reports whether a process runs whose whole command line is
// cmdline.
func Running(cmdline string) bool {
	for _, p := range Processes() {
		if p.Cmdline == cmdline {
			return true
		}
	}
	return false
}
