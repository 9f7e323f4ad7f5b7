package sandbox

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/testenv"
	"golang.org/x/sys/unix"
)

// escapeProbe builds internal/escapeprobe, a real program that tries the
// ways to a socket an attacker would, and returns it with a policy that
// lets it run and read the workspace and nothing else.
func escapeProbe(t *testing.T, f fixture) (string, Policy) {
	t.Helper()
	probe := testenv.EscapeProbe(t)
	return probe, Policy{Read: []string{f.ws}, Exec: []string{filepath.Dir(probe)}}.WithSystem()
}

// TestConfinedMakesNoSocketAnotherWay: with the network off, a confined
// program gets no socket by any route: not by socket(2), not by io_uring
// (IORING_OP_SOCKET makes the socket inside the kernel, where a filter on
// socket(2) never looks), not by a datagram socketpair (a datagram socket
// may send to any other one by name). So it reaches neither a pathname
// unix socket in a folder it cannot read (ssh-agent, D-Bus, docker.sock)
// nor a UDP listener nor a unix datagram socket (/dev/log). A stream
// socketpair, which talks only to its other end, still works: Python's
// asyncio and libuv's child pipes are made of them. The same probe run
// unconfined reaches every listener, so each refusal is the sandbox's.
func TestConfinedMakesNoSocketAnotherWay(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	probe, p := escapeProbe(t, f)
	ports := p
	ports.Connect = []uint16{1} // TCP allowed to a port: Landlock decides TCP, nothing else opens
	agent := testenv.UnixStreamSink(t, f.outside)
	udp := testenv.PacketSink(t, "udp4", "127.0.0.1:0")
	syslog := testenv.PacketSink(t, "unixgram", filepath.Join(f.outside, "log.sock"))

	type attempt struct {
		name string
		p    Policy
		argv []string
		to   *testenv.Sink
	}
	var otherABI []attempt
	if runtime.GOARCH == "amd64" {
		// A system call of another ABI is numbered differently: a filter
		// that looked at the number alone would miss it.
		otherABI = []attempt{
			{"i386 socket (int 0x80) to a unix socket", p, []string{"i386-unix", agent.Addr}, agent},
			{"x32 socket to a unix socket", p, []string{"x32-unix", agent.Addr}, agent},
		}
	}
	for _, tc := range append([]attempt{
		{"io_uring socket to a unix socket", p, []string{"uring-unix", agent.Addr}, agent},
		{"io_uring socket to UDP", p, []string{"uring-udp", udp.Addr}, udp},
		{"socket(2) to a unix socket", p, []string{"socket-unix", agent.Addr}, agent},
		{"socket(2) to UDP", p, []string{"socket-udp", udp.Addr}, udp},
		{"datagram socketpair to a unix datagram socket", p, []string{"pair-dgram", syslog.Addr}, syslog},
		{"TCP ports allowed: io_uring socket to UDP", ports, []string{"uring-udp", udp.Addr}, udp},
		{"TCP ports allowed: io_uring socket to a unix socket", ports, []string{"uring-unix", agent.Addr}, agent},
	}, otherABI...) {
		t.Run(tc.name, func(t *testing.T) {
			if !viaSpawn {
				// The probe itself works: unconfined, it gets through.
				out, _ := exec.Command(probe, tc.argv...).CombinedOutput()
				if strings.Contains(string(out), "function not implemented") {
					// This kernel has no such ABI (x32 is mostly built
					// out): the confined run below must fail all the same.
					t.Logf("unconfined: %s", out)
				} else if got, _ := tc.to.Reached(t); !got || !strings.Contains(string(out), "ESCAPED") {
					t.Fatalf("unconfined, the probe did not get through (so this test shows nothing): %s", out)
				}
			}
			out, code := runConfined(t, tc.p, f.ws, append([]string{probe}, tc.argv...)...)
			if got, msg := tc.to.Reached(t); got || strings.Contains(out, "ESCAPED") {
				t.Errorf("confined with the network off, the probe reached %s (received %q); it printed (exit %d):\n%s", tc.to.Addr, msg, code, out)
			}
		})
	}
	t.Run("stream socketpair still works", func(t *testing.T) {
		out, _ := runConfined(t, p, f.ws, probe, "pair-stream")
		if !strings.Contains(out, "PAIR-WORKS") {
			t.Errorf("a stream socketpair confined: %s", out)
		}
	})
}

// TestConfinedCannotAcceptOnAnInheritedSocket: a listening socket handed
// down by whoever started the program (an inherited descriptor) yields no
// connection while the network is off. The launcher now passes on no
// descriptor past the standard three (TestConfinedInheritsNoStrayDescriptor),
// so accept meets a closed descriptor; the filter's refusal of accept
// stays behind that.
func TestConfinedCannotAcceptOnAnInheritedSocket(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	probe, p := escapeProbe(t, f)
	ln, err := net.Listen("unix", filepath.Join(f.outside, "inherited.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	lf, err := ln.(*net.UnixListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	// A client already waiting: accept would return at once.
	c, err := net.Dial("unix", filepath.Join(f.outside, "inherited.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	exe, args, err := Wrap(p, probe, []string{probe, "accept", "3"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := &exec.Cmd{Path: exe, Args: args, Dir: f.ws, Stdout: &out, Stderr: &out, ExtraFiles: []*os.File{lf}}
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if strings.Contains(out.String(), "ESCAPED") || !strings.Contains(out.String(), "accept: ") {
		t.Errorf("confined accept on an inherited listening socket: %s", out.String())
	}
}

// TestSyscallFilterAssembles: every variant of the filter assembles (its
// jumps go forward and fit), so no launcher fails on a policy for it.
func TestSyscallFilterAssembles(t *testing.T) {
	for _, network := range []bool{false, true} {
		for _, tcp := range []bool{false, true} {
			for _, notify := range []bool{false, true} {
				for _, listen := range []bool{false, true} {
					r := filterRules{network: network, tcp: tcp, listen: listen, pinNotify: notify}
					if f := syscallFilter(r); auditArch != 0 && (len(f) == 0 || len(f) > 255) {
						t.Errorf("%+v: %d instructions", r, len(f))
					}
				}
			}
		}
	}
}

// TestConfinedRealProgramsStillRun: the filter breaks no
// ordinary program: Node.js starting a child (libuv's pipes are a
// socketpair, and it may try io_uring), Python's asyncio (its self-pipe is
// a socketpair) running a subprocess, and git making and reading a
// repository, all confined with the network off.
func TestConfinedRealProgramsStillRun(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	repo := filepath.Join(f.outside, "repo")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	p := Policy{Read: []string{f.ws}, Write: []string{repo}}.WithSystem()
	for _, tc := range []struct {
		name string
		argv []string
		want string
	}{
		{"node", []string{testenv.Tool(t, "node"), "-e", `const r = require("child_process").spawnSync("echo", ["CHILD"]); require("fs").promises.readFile("notes.txt", "utf8").then(s => console.log(r.stdout.toString().trim(), s.trim()))`}, "CHILD workspace text"},
		{"python3 asyncio", []string{"/usr/bin/python3", "-c", `import asyncio
async def main():
    p = await asyncio.create_subprocess_exec("echo", "CHILD", stdout=asyncio.subprocess.PIPE)
    out, _ = await p.communicate()
    print(out.decode().strip(), open("notes.txt").read().strip())
asyncio.run(main())`}, "CHILD workspace text"},
		{"git", []string{testenv.Tool(t, "git"), "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", "init", "-q"}, ""},
		{"git commit and status", []string{"/bin/sh", "-c", "cd " + repo + " && echo x > f && git add f && git -c user.name=t -c user.email=t@t commit -qm one && git status --short && git log --format=%s"}, "one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := runConfined(t, p, f.ws, tc.argv...)
			if code != 0 || !strings.Contains(out, tc.want) {
				t.Errorf("%s confined: exit %d, output:\n%s\nwant %q in it", tc.name, code, out, tc.want)
			}
		})
	}
}

// TestFilterHoldsForEveryLauncher runs the filter's tests again through
// Spawn (the long-lived launcher autopilot's commands start from) and
// through agentls-sandbox (the launcher the installed agentls uses): the
// same filter whichever program applies it.
func TestFilterHoldsForEveryLauncher(t *testing.T) {
	needLandlock(t)
	t.Run("through Spawn", func(t *testing.T) {
		viaSpawn = true
		t.Cleanup(func() { viaSpawn = false })
		t.Run("no socket another way", TestConfinedMakesNoSocketAnotherWay)
		t.Run("real programs still run", TestConfinedRealProgramsStillRun)
		t.Run("no capability", TestConfinedHoldsNoCapability)
		t.Run("no other process's limits", TestConfinedCannotChangeAnotherProcessesLimits)
		t.Run("no kernel key", TestConfinedReadsNoKernelKey)
		t.Run("no shared memory of others", TestConfinedReadsNoSharedMemoryOfOthers)
		t.Run("no stray descriptor", TestConfinedInheritsNoStrayDescriptor)
		t.Run("no listening without a bind port", TestConfinedListensOnlyWhereItMayBind)
	})
	t.Run("through agentls-sandbox", func(t *testing.T) {
		if err := UseLauncher(testenv.SandboxLauncher(t)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { UseLauncher("") })
		t.Run("no socket another way", TestConfinedMakesNoSocketAnotherWay)
		t.Run("no accept on an inherited socket", TestConfinedCannotAcceptOnAnInheritedSocket)
		t.Run("real programs still run", TestConfinedRealProgramsStillRun)
		t.Run("no capability", TestConfinedHoldsNoCapability)
		t.Run("no other process's limits", TestConfinedCannotChangeAnotherProcessesLimits)
		t.Run("no kernel key", TestConfinedReadsNoKernelKey)
		t.Run("no shared memory of others", TestConfinedReadsNoSharedMemoryOfOthers)
		t.Run("no stray descriptor", TestConfinedInheritsNoStrayDescriptor)
		t.Run("no listening without a bind port", TestConfinedListensOnlyWhereItMayBind)
		t.Run("through Spawn", func(t *testing.T) {
			viaSpawn = true
			t.Cleanup(func() { viaSpawn = false })
			t.Run("no socket another way", TestConfinedMakesNoSocketAnotherWay)
			t.Run("no capability", TestConfinedHoldsNoCapability)
			t.Run("no other process's limits", TestConfinedCannotChangeAnotherProcessesLimits)
			t.Run("no kernel key", TestConfinedReadsNoKernelKey)
			t.Run("no shared memory of others", TestConfinedReadsNoSharedMemoryOfOthers)
			t.Run("no stray descriptor", TestConfinedInheritsNoStrayDescriptor)
			t.Run("no listening without a bind port", TestConfinedListensOnlyWhereItMayBind)
		})
	})
}

// daemonScript is a confined shell command that leaves a daemon behind the
// way real ones detach (the probe's double fork under setsid, each refusal
// ignored: marked sleep 100) and then goes on running itself (marked sleep
// 101, the group's leader).
func daemonScript(probe, sl string) string {
	return probe + " daemon " + sl + " 100; exec " + sl + " 101"
}

// groupScript is daemonScript leaving its sleep 100 in a process group of
// its own (setpgid) instead.
func groupScript(probe, sl string) string {
	return probe + " setpgid " + sl + " 100; exec " + sl + " 101"
}

// waitDaemon waits until the leader of daemonScript runs (the marked
// sleep itself, not the shell or probe naming it), by which time the
// daemon it left runs too, and checks that it does.
func waitDaemon(t *testing.T, sl string) {
	t.Helper()
	if !testenv.WaitCommandLine(t, sl+" 101") {
		t.FailNow()
	}
	if !testenv.Running(sl + " 100") {
		t.Fatalf("the daemon never ran: %+v", testenv.Processes())
	}
}

// TestConfinedDaemonEndsWithItsGroup: a confined program that detaches a
// daemon (double fork under setsid, which a process group kill does not
// reach) does not leave it running once the program is stopped: through
// the one-shot launcher in a group of proc's (how MCP servers start) and
// through Spawn (autopilot's commands). setsid and setpgid fail inside the
// sandbox, so every process it starts stays in the group that is killed.
func TestConfinedDaemonEndsWithItsGroup(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	probe, p := escapeProbe(t, f)
	sh := lookPath(t, "sh")
	t.Run("one-shot launcher", func(t *testing.T) {
		sl, marker := markedSleep(t, f.ws)
		exe, args, err := Wrap(p, sh, []string{"sh", "-c", daemonScript(probe, sl)})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		cmd := &exec.Cmd{Path: exe, Args: args, Dir: f.ws, Stdout: &out, Stderr: &out}
		g, err := proc.Start(cmd, proc.Options{Grace: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		waitDaemon(t, sl)
		g.Stop(exited)
		<-exited
		g.Release()
		testenv.WaitNoProcesses(t, marker, 5*time.Second)
		t.Logf("the probe said:\n%s", out.String())
	})
	t.Run("Spawn", func(t *testing.T) {
		sl, marker := markedSleep(t, f.ws)
		pr, out, err := spawnPiped(p, Cmd{Path: sh, Args: []string{"sh", "-c", daemonScript(probe, sl)}, Dir: f.ws, Env: []string{"PATH=/usr/bin:/bin"}})
		if err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { pr.Wait(); close(exited) }()
		waitDaemon(t, sl)
		pr.Stop(exited)
		<-exited
		pr.Release()
		testenv.WaitNoProcesses(t, marker, 5*time.Second)
		t.Logf("the probe said:\n%s", out())
	})
	t.Run("Spawn, a child in a group of its own", func(t *testing.T) {
		sl, marker := markedSleep(t, f.ws)
		pr, out, err := spawnPiped(p, Cmd{Path: sh, Args: []string{"sh", "-c", groupScript(probe, sl)}, Dir: f.ws, Env: []string{"PATH=/usr/bin:/bin"}})
		if err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { pr.Wait(); close(exited) }()
		waitDaemon(t, sl)
		pr.Stop(exited)
		<-exited
		pr.Release()
		testenv.WaitNoProcesses(t, marker, 5*time.Second)
		t.Logf("the probe said:\n%s", out())
	})
	t.Run("Spawn, the command ending by itself", func(t *testing.T) {
		sl, marker := markedSleep(t, f.ws)
		out, code := spawnConfined(t, p, Cmd{Path: sh, Args: []string{"sh", "-c", probe + " daemon " + sl + " 100"}, Dir: f.ws, Env: []string{"PATH=/usr/bin:/bin"}})
		if !strings.Contains(out, "daemon started") {
			t.Fatalf("the probe did not start its daemon (exit %d): %s", code, out)
		}
		testenv.WaitNoProcesses(t, marker, 5*time.Second)
	})
}

// TestConfinedDaemonEndsWhenTheHostIsKilled: the same daemon, left by a
// command a host (standing in for agentls) started through Spawn, is gone
// after the host is SIGKILLed.
func TestConfinedDaemonEndsWhenTheHostIsKilled(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	probe, _ := escapeProbe(t, f)
	sl, marker := markedSleep(t, f.ws)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), spawnHostEnv+"="+f.ws+"\t"+filepath.Dir(probe)+"\t"+daemonScript(probe, sl))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	waitDaemon(t, sl)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	testenv.WaitNoProcesses(t, marker, 10*time.Second)
}

// TestConfinedCannotChangeAnotherProcessesLimits: a confined program
// changes only its own resource limits. Landlock keeps it from signalling
// agentls, the guard or the editor, but prlimit64 on their pid did as
// much: a hard CPU limit of 0 has the kernel SIGKILL the process, a
// descriptor or address-space limit of nearly nothing breaks it, and with
// agentls and the guard gone nobody kills the group a detached child was
// kept in. The victim here is a sleep of the test's own; the probe lowers
// its descriptor limit to 1, which unconfined it does.
func TestConfinedCannotChangeAnotherProcessesLimits(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	probe, p := escapeProbe(t, f)
	victim := func() (pid int, limit func() uint64) {
		cmd := exec.Command(lookPath(t, "sleep"), "60")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd.Process.Pid, func() uint64 {
			var l unix.Rlimit
			if err := unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_NOFILE, nil, &l); err != nil {
				t.Fatal(err)
			}
			return l.Max
		}
	}
	if !viaSpawn {
		pid, limit := victim()
		if out, _ := exec.Command(probe, "prlimit", strconv.Itoa(pid)).CombinedOutput(); limit() != 1 {
			t.Fatalf("unconfined, the probe did not change the limit (so this test shows nothing): %s", out)
		}
	}
	for name, q := range map[string]Policy{"network off": p, "network on": withNetwork(p)} {
		t.Run(name, func(t *testing.T) {
			pid, limit := victim()
			before := limit()
			out, code := runConfined(t, q, f.ws, probe, "prlimit", strconv.Itoa(pid))
			if after := limit(); after != before || strings.Contains(out, "ESCAPED") {
				t.Errorf("confined, the probe changed another process's descriptor limit from %d to %d (exit %d):\n%s", before, after, code, out)
			}
		})
	}
	t.Run("its own limits still change", func(t *testing.T) {
		out, code := runConfined(t, p, f.ws, "/bin/sh", "-c", "ulimit -n 64 && ulimit -n")
		if code != 0 || strings.TrimSpace(out) != "64" {
			t.Errorf("ulimit -n 64 confined: exit %d, output %q, want 64", code, out)
		}
	})
}

// TestConfinedReadsNoKernelKey: a confined program reads no key from the
// kernel's keyrings. They are no files, so Landlock never sees them, and
// every process of the user may search and read the user keyring: a
// confined probe read a key the user had added there, as it would a
// Kerberos ticket kept in KEYRING:persistent or a token a script stored.
// The same probe unconfined reads it, so the refusal is the sandbox's.
func TestConfinedReadsNoKernelKey(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	probe, p := escapeProbe(t, f)
	name := fmt.Sprintf("agentls-test-%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), os.Getpid())
	id, err := unix.AddKey("user", name, []byte("SECRET-IN-KEYRING"), unix.KEY_SPEC_USER_KEYRING)
	if err != nil {
		t.Skipf("this system gives the tests no kernel keyring (add_key: %v): nothing to keep from a confined program", err)
	}
	t.Cleanup(func() { unix.KeyctlInt(unix.KEYCTL_INVALIDATE, id, 0, 0, 0) })
	if !viaSpawn {
		if out, _ := exec.Command(probe, "keyring", name).CombinedOutput(); !strings.Contains(string(out), "SECRET-IN-KEYRING") {
			t.Fatalf("unconfined, the probe did not read the key (so this test shows nothing): %s", out)
		}
	}
	for name2, q := range map[string]Policy{"network off": p, "network on": withNetwork(p)} {
		t.Run(name2, func(t *testing.T) {
			out, code := runConfined(t, q, f.ws, probe, "keyring", name)
			if strings.Contains(out, "SECRET-IN-KEYRING") || strings.Contains(out, "ESCAPED") || !strings.Contains(out, "keyctl search: ") {
				t.Errorf("confined, the probe read the user's key (exit %d):\n%s", code, out)
			}
		})
	}
}

// TestConfinedReadsNoSharedMemoryOfOthers: a confined program cannot
// reach another process's System V IPC. Segments, message queues and
// semaphores are no files, so Landlock never sees them, and the kernel
// lists every segment to any process (ipcs does so): a confined probe
// found a segment the test had made, by index, and read it, as it would
// another program's shared buffers or an X client's window images. The
// same probe unconfined finds it, so the refusal is the sandbox's.
func TestConfinedReadsNoSharedMemoryOfOthers(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	probe, p := escapeProbe(t, f)
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
	if err != nil {
		t.Skipf("this system gives the tests no System V shared memory (shmget: %v): nothing to keep from a confined program", err)
	}
	seg, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		unix.SysvShmCtl(id, unix.IPC_RMID, nil)
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.SysvShmDetach(seg); unix.SysvShmCtl(id, unix.IPC_RMID, nil) })
	marker := fmt.Sprintf("SECRET-IN-SHM-%d", os.Getpid())
	copy(seg, marker)
	if !viaSpawn {
		if out, _ := exec.Command(probe, "shm", marker).CombinedOutput(); !strings.Contains(string(out), "ESCAPED") {
			t.Fatalf("unconfined, the probe did not find the segment (so this test shows nothing): %s", out)
		}
	}
	for name, q := range map[string]Policy{"network off": p, "network on": withNetwork(p)} {
		t.Run(name, func(t *testing.T) {
			out, code := runConfined(t, q, f.ws, probe, "shm", marker)
			if strings.Contains(out, "ESCAPED") || !strings.Contains(out, "shmctl SHM_INFO: ") {
				t.Errorf("confined, the probe read another process's shared memory (exit %d):\n%s", code, out)
			}
		})
	}
}

// TestConfinedInheritsNoStrayDescriptor: a confined program holds only
// its standard input, output and error. A descriptor that agentls was
// started with and that lacks close-on-exec (an editor, a terminal or a
// desktop session leaks them: a D-Bus or X11 connection, an ssh-agent
// socket) went down to every launcher and from there to every confined
// program, which wrote to such a socket with the network off: no socket
// call needed. Here the test's own process holds one end of a connected
// pair without close-on-exec, as a leaked one would be, and checks that
// nothing reached the other end.
func TestConfinedInheritsNoStrayDescriptor(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	probe, p := escapeProbe(t, f)
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	ours, leaked := fds[0], fds[1]
	defer unix.Close(ours)
	if _, err := unix.FcntlInt(uintptr(leaked), unix.F_SETFD, 0); err != nil {
		unix.Close(leaked)
		t.Fatal(err)
	}
	out, code := runConfined(t, p, f.ws, probe, "inherited")
	unix.Close(leaked)
	buf := make([]byte, 64)
	// The probe has ended: what it wrote is queued; a launcher may still
	// hold its copy of the other end, so never wait.
	n, _, _ := unix.Recvfrom(ours, buf, unix.MSG_DONTWAIT)
	if n > 0 || strings.Contains(out, "ESCAPED") || !strings.Contains(out, "looked at every descriptor") {
		t.Errorf("confined, the probe wrote to a socket it inherited (received %q; exit %d):\n%s", buf[:max(n, 0)], code, out)
	}
}

// TestConfinedListensOnlyWhereItMayBind: a policy that names TCP ports to
// connect to, and none to listen on, lets the program listen nowhere.
// Landlock judges bind(2), but listen(2) on a socket never bound has the
// kernel pick a free port with no bind, so a server whose card said
// "network: TCP connect 443" listened on a port anyone who reaches the
// machine could connect to (and accept(2) is open once TCP is).
func TestConfinedListensOnlyWhereItMayBind(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	probe, p := escapeProbe(t, f)
	if !viaSpawn {
		if out, _ := exec.Command(probe, "listen").CombinedOutput(); !strings.Contains(string(out), "ESCAPED") {
			t.Fatalf("unconfined, the probe could not listen (so this test shows nothing): %s", out)
		}
	}
	out, code := runConfined(t, withConnect(p, 1), f.ws, probe, "listen")
	if strings.Contains(out, "ESCAPED") || !strings.Contains(out, "socket: ok") {
		t.Errorf("confined with only a port to connect to, the probe listened (exit %d):\n%s", code, out)
	}
}
