package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/trust"

	"github.com/agentls/agentls/wire"
)

// TestConfinedCommandGroupDiesWithAgentlsKilled: a command autopilot runs
// confined, through the long-lived launcher, leaves a fork behind; the
// host (standing in for agentls) is SIGKILLed while both run. The fork
// and the command are gone: the guard knew the group, and the launcher,
// seeing its socket close, ends it too.
func TestConfinedCommandGroupDiesWithAgentlsKilled(t *testing.T) {
	if s := sandbox.Supported(); !s.Filesystem {
		testenv.Missing(t, "Landlock ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
	marker := "agentls-killed-confined-" + t.Name()
	sl := sleeper(t, marker)
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), confinedHostEnv+"="+filepath.Dir(sl)+"\t"+sl+" 777 & "+sl+" 778; wait")
	host.Stderr = os.Stderr
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

// TestConfinedGitRunsNoFsmonitorHook is the second wall behind guardGit's
// check: a repository whose config sets core.fsmonitor (written, say, by
// a parallel call between the check and the run) still runs no hook in a
// card-less git, and neither does a submodule's git.
func TestConfinedGitRunsNoFsmonitorHook(t *testing.T) {
	testenv.Tool(t, "git")
	if s := sandbox.Supported(); !s.Filesystem {
		testenv.Missing(t, "Landlock ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	gitT(t, dir, "init", "-q", "-b", "main")
	gitT(t, dir, "commit", "-q", "--allow-empty", "-m", "top")
	withSubmodule(t, dir, "sub")
	marker := filepath.Join(dir, "pwned")
	gitT(t, dir, "config", "core.fsmonitor", hostileHook(marker))
	gitT(t, filepath.Join(dir, "sub"), "config", "core.fsmonitor", hostileHook(marker))
	env := append(commandEnv(nil), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=status.short", "GIT_CONFIG_VALUE_0=true")
	c, err := confineCommand([]string{"git", "status", "--branch"}, []string{dir}, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.run(context.Background(), dir, time.Minute, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Output, "PWNED") || res.ExitCode != 0 {
		t.Fatalf("confined git status ran the repository's core.fsmonitor (exit %d): %q", res.ExitCode, res.Output)
	}
	if !strings.HasPrefix(res.Output, "## main") {
		t.Errorf("confined git status = %q; want the short form the user's GIT_CONFIG_COUNT asked for (its settings kept)", res.Output)
	}
}

// TestConfinedCommandsRunThroughToolchainShims: a command run confined, as
// autopilot runs one without a card, started from pyenv's python3 shim,
// nvm's node and nvm's npx (the managers' layouts built in a temporary
// home) starts and prints what it should; and autopilot's `go version`
// through asdf's go shim runs without a card. Interpreters themselves
// never skip the card (the classifier calls them unsafe), so the first
// three go through confineCommand directly, the path autopilot takes.
func TestConfinedCommandsRunThroughToolchainShims(t *testing.T) {
	if s := sandbox.Supported(); !s.Filesystem {
		testenv.Missing(t, "Landlock ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
	tc := testenv.NewToolchains(t)
	tc.Use(t)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	testenv.EchoServers(t, ws)
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"python3", "-c", "print('python says', 6*7)"}, "python says 42"},
		{[]string{"node", "-e", "console.log('node says', 6*7)"}, "node says 42"},
		// npm's own version: a package of the workspace is no program a
		// confined command may run (the workspace is read-only to it).
		{[]string{"npx", "--offline", "--version"}, npmVersion(t)},
	} {
		cc, err := confineCommand(c.argv, []string{ws}, append(os.Environ(), "npm_config_update_notifier=false"), nil)
		if err != nil {
			t.Fatalf("%v: %v", c.argv, err)
		}
		res, err := cc.run(t.Context(), ws, time.Minute, 1<<16)
		if err != nil || res.ExitCode != 0 || !strings.Contains(res.Output, c.want) {
			t.Errorf("%v confined: exit %d, %v, output %q; want %q", c.argv, res.ExitCode, err, res.Output, c.want)
		}
	}

	tt := newToolTest(t)
	tt.env.Mode = modeIs(wire.ModeAutopilot)
	tt.deny = true // a card is refused: only what runs without one succeeds
	args, _ := jsonArgs(map[string]any{"command": "go version"})
	out, isErr, status := tt.call("run_command", args)
	if isErr || !strings.Contains(out, "go version go") || len(tt.asks) != 0 {
		t.Errorf("autopilot `go version` through asdf's shim = %s %q (asks %d); want it run confined without a card", status, out, len(tt.asks))
	}
}

// npmVersion is what `npx --version` prints, asked unconfined.
func npmVersion(t *testing.T) string {
	out, err := exec.Command("npx", "--offline", "--version").Output()
	if err != nil {
		t.Fatalf("npx --version: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestConfinedCommandMakesNoSocketAnotherWay: code that got to run inside
// a command autopilot runs without a card (here the real io_uring probe,
// its folder added to what the command may run, standing in for a
// classifier miss) reaches neither a pathname unix socket outside the
// workspace (an ssh-agent's) nor a UDP listener: the long-lived launcher
// applies the same filter as every confined start.
func TestConfinedCommandMakesNoSocketAnotherWay(t *testing.T) {
	if s := sandbox.Supported(); !s.Filesystem || !s.SocketFilter {
		testenv.Missing(t, "Landlock and the socket filter ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled, on amd64 or arm64")
	}
	ws, outside := t.TempDir(), t.TempDir()
	probe := testenv.EscapeProbe(t)
	agent := testenv.UnixStreamSink(t, outside)
	udp := testenv.PacketSink(t, "udp4", "127.0.0.1:0")
	for _, tc := range []struct {
		mode string
		to   *testenv.Sink
	}{{"uring-unix", agent}, {"uring-udp", udp}, {"socket-unix", agent}} {
		cc, err := confineCommand([]string{probe, tc.mode, tc.to.Addr}, []string{ws}, []string{"PATH=/usr/bin:/bin"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		cc.policy.Exec = append(cc.policy.Exec, filepath.Dir(cc.path))
		res, err := cc.run(t.Context(), ws, time.Minute, 64<<10)
		if err != nil {
			t.Fatal(err)
		}
		if got, msg := tc.to.Reached(t); got || strings.Contains(res.Output, "ESCAPED") {
			t.Errorf("confined command, %s: reached %s (received %q); the probe said:\n%s", tc.mode, tc.to.Addr, msg, res.Output)
		}
		if !strings.Contains(res.Output, "socket: ") {
			t.Errorf("the probe did not run: %s", res.Output)
		}
		// Unconfined, the same probe gets through: the refusal is the sandbox's.
		plain, err := runProcess(t.Context(), []string{probe, tc.mode, tc.to.Addr}, ws, nil, time.Minute, 64<<10)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := tc.to.Reached(t); !got {
			t.Errorf("unconfined, %s did not reach %s (so this test shows nothing): %s", tc.mode, tc.to.Addr, plain.Output)
		}
	}
}

// TestConfineCommandNeedsTheSocketFilter: where the seccomp filter is
// missing (an architecture it is not written for), Landlock alone would
// leave unix sockets and UDP open to a command run without a card, so
// autopilot does not run one: confineCommand fails saying why, and the
// command asks.
func TestConfineCommandNeedsTheSocketFilter(t *testing.T) {
	if s := sandbox.Supported(); !s.Filesystem {
		testenv.Missing(t, "Landlock ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
	real := sandbox.Supported
	sandbox.Supported = func() sandbox.Support {
		s := real()
		s.SocketFilter = false
		return s
	}
	t.Cleanup(func() { sandbox.Supported = real })
	_, err := confineCommand([]string{"ls"}, []string{t.TempDir()}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "not sockets") {
		t.Fatalf("confineCommand without the socket filter: %v, want an error saying sockets cannot be confined", err)
	}
	if d := cannotConfine(err); d.Action != trust.Ask {
		t.Errorf("decision %v, want ask", d.Action)
	}
}

// daemonCommand leaves a daemon the way a shell script detaches one:
// setsid(1) in a subshell of a subshell, so the marked sleep 777 is
// orphaned in a session of its own (or, where setsid is refused, runs
// anyway in the command's group), then the command goes on as sleep 778.
func daemonCommand(sl string) string {
	return "( (setsid " + sl + " 777 || " + sl + " 777) & ); exec " + sl + " 778"
}

// TestConfinedCommandDaemonEndsWithIt: a command autopilot runs without a
// card that detaches a daemon under setsid leaves nothing once it is
// cancelled: setsid fails inside the sandbox, so the daemon stays in the
// command's process group, which the cancel kills.
func TestConfinedCommandDaemonEndsWithIt(t *testing.T) {
	if s := sandbox.Supported(); !s.Filesystem || !s.SocketFilter {
		testenv.Missing(t, "Landlock and the seccomp filter ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled, on amd64 or arm64")
	}
	testenv.Tool(t, "setsid")
	marker := "agentls-daemon-confined-" + t.Name()
	sl := sleeper(t, marker)
	cc, err := confineCommand([]string{"sh", "-c", daemonCommand(sl)}, []string{filepath.Dir(sl)}, []string{"PATH=/usr/bin:/bin"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan procResult)
	go func() {
		res, _ := cc.run(ctx, filepath.Dir(sl), time.Hour, 64<<10)
		done <- res
	}()
	if !testenv.WaitCommandLine(t, sl+" 778") || !testenv.WaitCommandLine(t, sl+" 777") {
		cancel()
		<-done
		t.FailNow()
	}
	cancel()
	res := <-done
	testenv.WaitNoProcesses(t, marker, 10*time.Second)
	t.Logf("the command said: %s", res.Output)
}

// TestConfinedCommandDaemonDiesWithAgentlsKilled: the same daemon, left
// by a confined command of a host (standing in for agentls) that is
// SIGKILLed, is gone: it never left the group the guard and the launcher
// end.
func TestConfinedCommandDaemonDiesWithAgentlsKilled(t *testing.T) {
	if s := sandbox.Supported(); !s.Filesystem || !s.SocketFilter {
		testenv.Missing(t, "Landlock and the seccomp filter ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled, on amd64 or arm64")
	}
	testenv.Tool(t, "setsid")
	marker := "agentls-daemon-killed-" + t.Name()
	sl := sleeper(t, marker)
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), confinedHostEnv+"="+filepath.Dir(sl)+"\t"+daemonCommand(sl))
	host.Stderr = os.Stderr
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
