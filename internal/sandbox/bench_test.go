package sandbox

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/bench"
	"github.com/agentls/agentls/internal/testenv"
)

// BenchmarkConfinedSpawn is figure 14: one command autopilot runs without
// a card, started as run_command starts it, through Spawn (the long-lived
// launcher, here agentls-sandbox as the installed agentls finds it beside
// itself) under the run_command policy (read the workspace, write a
// private temp folder of its own, no network) and run to its exit, against
// the same command started directly. `git status` in a small repository is
// what autopilot typically runs; `true` does nothing, so its ratio is the
// whole cost of confinement. The launcher=once rows start the one-shot
// launcher per command (how a repository's MCP server starts), and the
// launcher=agentls rows the fallback, agentls re-executed as that
// launcher, measured in the same run. Wall time (the figure) and CPU time
// per spawn (the cpu- pair: the command's and, through Spawn, the
// long-lived launcher's share) are both reported. Goal: ratio ≤ 1.2 for
// git status.
func BenchmarkConfinedSpawn(b *testing.B) {
	if s := Supported(); !s.Filesystem {
		testenv.Missing(b, "Landlock ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
	agentls := testenv.Agentls(b)
	launcher := testenv.SandboxLauncher(b)
	git := testenv.Tool(b, "git")
	ws, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "--allow-empty", "-m", "x"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for i := 0; i < 20; i++ {
		if err := os.WriteFile(filepath.Join(ws, "f"+string(rune('a'+i))+".go"), []byte("package x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	tmp, err := PrivateTemp()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(tmp) })
	policy := Policy{Read: []string{ws}}.WithSystem()
	once := policy
	once.Write = append(once.Write, tmp)
	enc, err := json.Marshal(once)
	if err != nil {
		b.Fatal(err)
	}
	if err := UseLauncher(launcher); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { UseLauncher("") })
	env := append(os.Environ(), "TMPDIR="+tmp, "GIT_CONFIG_GLOBAL=/dev/null")
	// Commands autopilot runs are a model turn apart: each run is followed
	// by a pause, not timed, so that work either side leaves for after the
	// command (the long-lived launcher readies its next thread once a
	// command ended) is done before the other side's run starts, instead
	// of slowing it.
	const pause = 3 * time.Millisecond
	// run starts one command and waits for it, adding the CPU time it used
	// (user and system, of the launcher and the command alike) to *cpu: on
	// a busy shared machine wall time mostly measures the queue for the
	// cores, CPU time what the spawn itself costs.
	run := func(cpu *time.Duration, path string, args ...string) time.Duration {
		cmd := &exec.Cmd{Path: path, Args: args, Dir: ws, Env: env}
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
		d := time.Since(start)
		*cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		time.Sleep(pause)
		return d
	}
	// spawn does the same through Spawn, as run_command does: output on a
	// pipe read to its end, the group released.
	spawn := func(cpu *time.Duration, args ...string) time.Duration {
		start := time.Now()
		pr, out, err := spawnPiped(policy, Cmd{Path: args[0], Args: args, Dir: ws, Env: env})
		if err != nil {
			b.Fatal(err)
		}
		code := pr.Wait()
		pr.Release()
		if o := out(); code != 0 {
			b.Fatalf("%v: exit %d\n%s", args, code, o)
		}
		d := time.Since(start)
		*cpu += pr.cpu
		time.Sleep(pause)
		return d
	}
	true_ := testenv.Tool(b, "true")
	for _, c := range []struct {
		name, exe string
		argv      []string
	}{
		{"cmd=git-status", "", []string{git, "status", "--short"}},
		{"cmd=true", "", []string{true_}},
		{"cmd=git-status,launcher=once", launcher, []string{git, "status", "--short"}},
		{"cmd=true,launcher=once", launcher, []string{true_}},
		{"cmd=git-status,launcher=agentls", agentls, []string{git, "status", "--short"}},
		{"cmd=true,launcher=agentls", agentls, []string{true_}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var confinedCPU, plainCPU time.Duration
			confined := func() time.Duration {
				if c.exe == "" {
					return spawn(&confinedCPU, c.argv...)
				}
				return run(&confinedCPU, c.exe, append([]string{c.exe, launcherArg, string(enc), c.argv[0]}, c.argv...)...)
			}
			plain := func() time.Duration { return run(&plainCPU, c.argv[0], c.argv...) }
			bench.Pair(5, confined, plain) // warm both (and start the long-lived launcher)
			confinedCPU, plainCPU = 0, 0
			before := spawnerCPU(b, policy)
			subj, base := bench.Pair(b.N, confined, plain)
			if c.exe == "" {
				confinedCPU += spawnerCPU(b, policy) - before
			}
			bench.ReportDurations(b, "", subj, base)
			n := float64(b.N)
			bench.ReportPair(b, "cpu-", bench.UnitMicros, bench.Micros(confinedCPU)/n, bench.Micros(plainCPU)/n)
		})
	}
}
