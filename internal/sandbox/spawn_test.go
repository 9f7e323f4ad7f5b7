package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testenv"
)

// viaSpawn makes runConfined start programs through Spawn.
var viaSpawn bool

// spawnConfined runs c through Spawn and returns its combined output and
// exit code.
func spawnConfined(t *testing.T, p Policy, c Cmd) (string, int) {
	t.Helper()
	pr, out, err := spawnPiped(p, c)
	if err != nil {
		t.Fatal(err)
	}
	code := pr.Wait()
	pr.Release()
	return out(), code
}

// spawnPiped starts c through Spawn with its output on a pipe; out returns
// all of it once the command has ended.
func spawnPiped(p Policy, c Cmd) (*Process, func() string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	c.Stdout, c.Stderr = w, w
	if c.Grace == 0 {
		c.Grace = time.Second
	}
	pr, err := Spawn(p, c)
	w.Close()
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&buf, r); r.Close(); close(done) }()
	return pr, func() string { <-done; return buf.String() }, nil
}

// markedSleep is a link to sleep inside dir whose path carries the test's
// name, so the process table shows which processes it started.
func markedSleep(t *testing.T, dir string) (path, marker string) {
	t.Helper()
	marker = fmt.Sprintf("agentls-spawn-%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), os.Getpid())
	path = filepath.Join(dir, "sleep-"+marker)
	if err := os.Symlink(lookPath(t, "sleep"), path); err != nil {
		t.Fatal(err)
	}
	return path, marker
}

func lookPath(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		testenv.Missing(t, name, "install it")
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestSpawnConfines runs the confinement tests again through Spawn, the
// long-lived launcher run_command uses: its commands are held to the same
// rules as the one-shot launcher's.
func TestSpawnConfines(t *testing.T) {
	needLandlock(t)
	viaSpawn = true
	t.Cleanup(func() { viaSpawn = false })
	t.Run("reads only the workspace", TestConfinedReadsOnlyTheWorkspace)
	t.Run("writes nothing outside Write", TestConfinedWritesNothingOutsideWrite)
	t.Run("cannot run workspace programs", TestConfinedCannotRunWorkspacePrograms)
	t.Run("network", TestConfinedNetwork)
	t.Run("through agentls-sandbox", func(t *testing.T) {
		launcher := testenv.SandboxLauncher(t)
		if err := UseLauncher(launcher); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { UseLauncher("") })
		t.Run("reads only the workspace", TestConfinedReadsOnlyTheWorkspace)
		t.Run("writes nothing outside Write", TestConfinedWritesNothingOutsideWrite)
	})
}

// TestSpawnNeverRunsUnconfined: a policy the kernel cannot take fails the
// start; the command never runs.
func TestSpawnNeverRunsUnconfined(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	p := Policy{Exec: []string{"/usr", "/bin", "/lib", "/lib64"}, Read: []string{"/\x00bad"}}
	pr, out, err := spawnPiped(p, Cmd{Path: lookPath(t, "echo"), Args: []string{"echo", "RAN"}, Dir: f.ws})
	if err == nil {
		pr.Wait()
		pr.Release()
		t.Fatalf("Spawn with a policy the kernel could not take started the command (output %q)", out())
	}
	if !strings.Contains(err.Error(), "cannot confine") {
		t.Errorf("Spawn error %q does not say it cannot confine", err)
	}
}

// TestSpawnTempIsPrivate: each command writes only its own temporary
// folder; a command running beside it or after it cannot read it, list
// the folder that holds them or write there, and the folder is gone once
// its command has ended.
func TestSpawnTempIsPrivate(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	p := f.readOnly()
	sh := lookPath(t, "sh")
	env := []string{"PATH=/usr/bin:/bin", "LANG=C"}
	a, aOut, err := spawnPiped(p, Cmd{Path: sh, Args: []string{"sh", "-c", `echo LEFTOVER-A > "$TMPDIR/a" && echo "$TMPDIR" && exec sleep 60`}, Dir: f.ws, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { a.Stop(nil); a.Wait(); a.Release() }()
	if a.TempDir == "" || !strings.HasPrefix(a.TempDir, os.TempDir()) && !strings.Contains(a.TempDir, "agentls-confined-") {
		t.Fatalf("TempDir = %q", a.TempDir)
	}
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(a.TempDir, "a")); err == nil {
			break
		}
		if i == 500 {
			t.Fatal("the first command never wrote its temporary file")
		}
		time.Sleep(10 * time.Millisecond)
	}
	root := filepath.Dir(a.TempDir)
	probe := fmt.Sprintf(`cat %[1]s/a; ls %[2]s; echo x > %[1]s/b; echo x > %[2]s/c; echo x > "$TMPDIR/own" && echo OWN-WRITTEN`, a.TempDir, root)
	out, _ := spawnConfined(t, p, Cmd{Path: sh, Args: []string{"sh", "-c", probe}, Dir: f.ws, Env: env})
	if strings.Contains(out, "LEFTOVER-A") {
		t.Errorf("a second command read the first one's temporary file while it ran: %q", out)
	}
	if !strings.Contains(out, "OWN-WRITTEN") {
		t.Errorf("a command could not write its own TMPDIR: %q", out)
	}
	for _, p := range []string{filepath.Join(a.TempDir, "b"), filepath.Join(root, "c")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a command wrote %s, outside its own folder", p)
		}
	}
	a.Stop(nil)
	a.Wait()
	aOut()
	// The folder is removed right after the exit is reported.
	for i := 0; ; i++ {
		if _, err := os.Stat(a.TempDir); os.IsNotExist(err) {
			break
		}
		if i == 500 {
			t.Fatalf("%s still exists after its command ended", a.TempDir)
		}
		time.Sleep(10 * time.Millisecond)
	}
	out, _ = spawnConfined(t, p, Cmd{Path: sh, Args: []string{"sh", "-c", "cat " + a.TempDir + "/a"}, Dir: f.ws, Env: env})
	if strings.Contains(out, "LEFTOVER-A") {
		t.Errorf("the next command read the first one's leftovers: %q", out)
	}
}

// TestSpawnStopEndsTheGroup: Stop and Release end the command and what it
// left running in its group, as for a command started directly.
func TestSpawnStopEndsTheGroup(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	sl, marker := markedSleep(t, f.ws)
	pr, _, err := spawnPiped(f.readOnly(), Cmd{Path: lookPath(t, "sh"), Args: []string{"sh", "-c", sl + " 100 & " + sl + " 100"}, Dir: f.ws, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	code := 0
	go func() { code = pr.Wait(); close(exited) }()
	for i := 0; len(testenv.ProcessesMatching(marker)) < 2; i++ {
		if i == 1000 {
			t.Fatal("the two sleeps never ran")
		}
		time.Sleep(10 * time.Millisecond)
	}
	pr.Stop(exited)
	<-exited
	pr.Release()
	if code != -1 {
		t.Errorf("stopped command: exit code %d, want -1 (killed by a signal)", code)
	}
	testenv.WaitNoProcesses(t, marker, 5*time.Second)
}

// TestSpawnCannotSignalTheLauncher: a command cannot end the long-lived
// launcher that started it (on Landlock ABI 6, where signals stay in the
// command's own domain) nor read its memory.
func TestSpawnCannotSignalTheLauncher(t *testing.T) {
	needLandlock(t)
	if !Supported().Scoped {
		testenv.Missing(t, "Landlock ABI 6 (signal scoping)", "run on Linux 6.12 or later")
	}
	f := newFixture(t)
	out, _ := spawnConfined(t, f.readOnly(), Cmd{Path: lookPath(t, "sh"), Args: []string{"sh", "-c", `kill -0 $PPID && echo SIGNALLED; kill -0 $$ && echo SELF`}, Dir: f.ws, Env: []string{"PATH=/usr/bin:/bin"}})
	if strings.Contains(out, "SIGNALLED") || !strings.Contains(out, "SELF") {
		t.Errorf("a confined command signalling its launcher: %q; want refused (and its own pid reachable)", out)
	}
}

// TestSpawnHostKilledLeavesNothing: a process that started a confined
// command (here this test binary as a host, standing in for agentls) is
// killed with SIGKILL; the launcher sees its socket close and ends the
// command's group, the forks it made included.
func TestSpawnHostKilledLeavesNothing(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	sl, marker := markedSleep(t, f.ws)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), spawnHostEnv+"="+f.ws+"\t\t"+sl+" 100 & "+sl+" 100")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; len(testenv.ProcessesMatching(marker)) < 2; i++ {
		if i == 1000 {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the host never started its command")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	testenv.WaitNoProcesses(t, marker, 10*time.Second)
}

// spawnHostEnv makes the test binary a host that spawns a confined shell
// command (WS TAB EXECDIR TAB COMMAND: it may read WS and run what is in
// EXECDIR, if any) and blocks.
const spawnHostEnv = "AGENTLS_SANDBOX_TEST_SPAWN_HOST"

func runSpawnHost(spec string) {
	f := strings.SplitN(spec, "\t", 3)
	p := Policy{Read: []string{f[0]}}
	if f[1] != "" {
		p.Exec = []string{f[1]}
	}
	pr, err := Spawn(p.WithSystem(), Cmd{Path: "/bin/sh", Args: []string{"sh", "-c", f[2]}, Dir: f[0], Env: []string{"PATH=/usr/bin:/bin"},
		Stdout: os.Stderr, Stderr: os.Stderr, Grace: time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pr.Wait()
	os.Exit(0)
}

// TestSpawnTooLargeFailsAlone: a command whose arguments do not fit in
// one message to the launcher fails with a clear error, and the launcher
// (and a command running on it) carries on.
func TestSpawnTooLargeFailsAlone(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	p := f.readOnly()
	sl, marker := markedSleep(t, f.ws)
	running, _, err := spawnPiped(p, Cmd{Path: sl, Args: []string{sl, "60"}, Dir: f.ws})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { running.Stop(nil); running.Wait(); running.Release() }()
	_, _, err = spawnPiped(p, Cmd{Path: lookPath(t, "echo"), Args: []string{"echo", strings.Repeat("x", 4<<20)}, Dir: f.ws})
	if err == nil || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("a 4 MB argument: %v, want an error saying it is too large", err)
	}
	if len(testenv.ProcessesMatching(marker)) != 1 {
		t.Fatal("the command already running on the launcher was ended")
	}
	out, code := spawnConfined(t, p, Cmd{Path: lookPath(t, "echo"), Args: []string{"echo", "STILL"}, Dir: f.ws})
	if code != 0 || out != "STILL\n" {
		t.Errorf("after the refused request: %q exit %d", out, code)
	}
}

// TestSpawnedCommandHoldsOnlyItsStdio: a command the launcher forks gets
// stdin, stdout and stderr and no other descriptor: not the launcher's
// control socket (it would send the launcher requests), not another
// command's pipes.
func TestSpawnedCommandHoldsOnlyItsStdio(t *testing.T) {
	needLandlock(t)
	f := newFixture(t)
	sh := lookPath(t, "sh")
	// Another command running on the same launcher, its pipes open there.
	other, _, err := spawnPiped(f.readOnly(), Cmd{Path: lookPath(t, "sleep"), Args: []string{"sleep", "60"}, Dir: f.ws})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { other.Stop(nil); other.Wait(); other.Release() }()
	probe := `for fd in 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do if (exec 2>/dev/null; : >&$fd) ; then echo "OPEN $fd"; fi; done; echo probed`
	out, code := spawnConfined(t, f.readOnly(), Cmd{Path: sh, Args: []string{"sh", "-c", probe}, Dir: f.ws, Env: []string{"PATH=/usr/bin:/bin"}})
	if code != 0 || !strings.Contains(out, "probed") || strings.Contains(out, "OPEN") {
		t.Errorf("descriptors a confined command holds beyond 0-2: %q (exit %d)", out, code)
	}
}
