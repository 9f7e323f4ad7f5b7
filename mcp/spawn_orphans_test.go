package mcp

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"
)

// Every test here proves the rule by the process table: after the event, no
// process whose command line carries the test's marker is alive.

func TestNoOrphansAfterClose(t *testing.T) {
	fault := faultServer(t, "f", "-child", "-linger", "-ignore-term")
	npx := everythingServer(t, "npx", true)
	r := NewRegistry([]config.Server{fault, npx}, Options{KillGrace: 300 * time.Millisecond})
	t.Cleanup(func() { r.Close() })
	r.Start(t.Context())
	r.Wait(t.Context())
	for _, s := range []config.Server{fault, npx} {
		if info := serverInfo(t, r, s.Name); info.State != Connected {
			t.Fatalf("%s: %s %s", s.Name, info.State, info.Error)
		}
		// npx: npm, its shell and node; fault: server and grandchild.
		if n := len(testenv.ProcessesMatching(markerOf(s))); n < 2 {
			t.Fatalf("%s: want a process tree of 2 or more, found %d", s.Name, n)
		}
	}
	r.Close()
	for _, s := range []config.Server{fault, npx} {
		testenv.WaitNoProcesses(t, markerOf(s), 10*time.Second)
	}
}

func TestNoOrphansAfterFailedStart(t *testing.T) {
	slow := faultServer(t, "slow", "-child", "-handshake-delay", "30s")
	slow.ConnectTimeout = 300 * time.Millisecond
	r := startRegistry(t, []config.Server{slow}, Options{})
	if st := serverInfo(t, r, "slow").State; st != Failed {
		t.Fatalf("state %s, want failed", st)
	}
	// Before Close: a failed start reaps at once.
	testenv.WaitNoProcesses(t, markerOf(slow), 10*time.Second)
}

func TestNoOrphansWithoutGuard(t *testing.T) {
	proc.SetHookForTest(false)
	defer proc.SetHookForTest(true)
	s := faultServer(t, "f", "-child", "-linger")
	r := startRegistry(t, []config.Server{s}, Options{KillGrace: 300 * time.Millisecond})
	mustCall(t, r, "f__echo", `{"text":"direct"}`, "direct")
	procs := testenv.ProcessesMatching(markerOf(s))
	if len(procs) != 2 {
		t.Fatalf("want server and grandchild, found %+v", procs)
	}
	r.Close()
	testenv.WaitNoProcesses(t, markerOf(s), 10*time.Second)
}

func TestNoOrphansWhenHostIsKilled(t *testing.T) {
	fault := faultServer(t, "f", "-child", "-linger", "-ignore-term")
	npx := everythingServer(t, "npx", true)
	node := everythingServer(t, "node", false)
	spec, err := json.Marshal([]config.Server{fault, npx, node})
	if err != nil {
		t.Fatal(err)
	}
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), helperEnv+"="+string(spec))
	host.Stderr = os.Stderr
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var states []string
	for lines.Scan() && lines.Text() != "ready" {
		states = append(states, lines.Text())
	}
	for _, st := range states {
		if !strings.Contains(st, " connected") {
			t.Errorf("host: %s", st)
		}
	}
	for _, s := range []config.Server{fault, npx, node} {
		if len(testenv.ProcessesMatching(markerOf(s))) == 0 {
			t.Fatalf("%s is not running in the host", s.Name)
		}
	}
	host.Process.Signal(syscall.SIGKILL)
	host.Wait()
	for _, s := range []config.Server{fault, npx, node} {
		testenv.WaitNoProcesses(t, markerOf(s), 15*time.Second)
	}
}

// confinedDaemon is the fault server detaching a daemon (a double fork
// under setsid), as a user's server that asked for confinement
// (sandbox = "workspace-read", no card needed), in a workspace of its own.
func confinedDaemon(t *testing.T, name string) config.Server {
	t.Helper()
	if s := sandbox.Supported(); !s.Filesystem || !s.SocketFilter {
		testenv.Missing(t, "Landlock and the seccomp filter ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled, on amd64 or arm64")
	}
	s := userDaemon(t, name)
	s.Sandbox = config.SandboxWorkspaceRead
	return s
}

// userDaemon is the fault server detaching a daemon as a user's own
// server: unconfined, so setsid works for it.
func userDaemon(t *testing.T, name string) config.Server {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	s := faultServer(t, name, "-daemon", "-linger")
	s.WorkspaceRoot = realDir(t)
	s.Cwd = s.WorkspaceRoot
	return s
}

// waitIdle waits until the daemon of a confinedDaemon server runs.
func waitIdle(t *testing.T, s config.Server) {
	t.Helper()
	for i := 0; ; i++ {
		for _, p := range testenv.ProcessesMatching(markerOf(s)) {
			if strings.Contains(p.Cmdline, " -idle ") {
				return
			}
		}
		if i == 3000 {
			t.Fatalf("%s: its daemon never ran: %+v", s.Name, testenv.ProcessesMatching(markerOf(s)))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNoConfinedDaemonAfterClose: a confined server that detaches a daemon
// leaves nothing once the registry closes: setsid fails in the sandbox, so
// the daemon stays in the server's process group.
func TestNoConfinedDaemonAfterClose(t *testing.T) { daemonEndsWithClose(t, confinedDaemon(t, "d")) }

// TestNoUserServerDaemonAfterClose: the user's own server, unconfined,
// may detach a daemon (setsid works for it), and the daemon still ends
// when the registry closes: the server runs under a reaper (a child
// subreaper) that kills whatever it inherited.
func TestNoUserServerDaemonAfterClose(t *testing.T) { daemonEndsWithClose(t, userDaemon(t, "d")) }

// TestNoUserServerDaemonWhenHostIsKilled: the same, its host SIGKILLed.
func TestNoUserServerDaemonWhenHostIsKilled(t *testing.T) {
	daemonEndsWithHost(t, userDaemon(t, "d"))
}

func daemonEndsWithClose(t *testing.T, s config.Server) {
	r := startRegistry(t, []config.Server{s}, Options{KillGrace: 300 * time.Millisecond})
	if info := serverInfo(t, r, "d"); info.State != Connected {
		t.Fatalf("state %s: %s\n%s", info.State, info.Error, info.StderrTail)
	}
	waitIdle(t, s)
	r.Close()
	testenv.WaitNoProcesses(t, markerOf(s), 10*time.Second)
}

// TestNoConfinedDaemonWhenHostIsKilled: the same daemon is gone after its
// host (standing in for agentls) is SIGKILLed: the guard ends the group
// it never left.
func TestNoConfinedDaemonWhenHostIsKilled(t *testing.T) {
	daemonEndsWithHost(t, confinedDaemon(t, "d"))
}

func daemonEndsWithHost(t *testing.T, s config.Server) {
	spec, err := json.Marshal([]config.Server{s})
	if err != nil {
		t.Fatal(err)
	}
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), helperEnv+"="+string(spec))
	host.Stderr = os.Stderr
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() && lines.Text() != "ready" {
		if !strings.Contains(lines.Text(), " connected") {
			t.Errorf("host: %s", lines.Text())
		}
	}
	waitIdle(t, s)
	host.Process.Signal(syscall.SIGKILL)
	host.Wait()
	testenv.WaitNoProcesses(t, markerOf(s), 15*time.Second)
}
