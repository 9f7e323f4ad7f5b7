package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
)

// launcherArg is the hidden first argument that turns this binary into the
// launcher: `agentls __agentls_confine POLICY PATH ARGV0 ARGS...`.
const launcherArg = "__agentls_confine"

// spawnerArg is the hidden first argument that turns this binary into
// the long-lived launcher behind [Spawn]: `agentls __agentls_spawner POLICY ROOT`.
const spawnerArg = "__agentls_spawner"

// launcherFailed is the launcher's exit status when it could not confine
// itself; it never runs the target unconfined.
const launcherFailed = 126

// groupKeeperArg is the hidden first argument that turns this binary into
// the spawner's group keeper (see runGroupKeeper): `agentls __agentls_groups`.
const groupKeeperArg = "__agentls_groups"

var hookInstalled atomic.Bool

// ErrNoLauncher is returned by [Wrap] when [Hook] was not called in main:
// re-executing a binary that does not know the launcher argument would run
// that binary instead (a test binary would run its tests again).
var ErrNoLauncher = errors.New("sandbox: this binary has no launcher (sandbox.Hook is not called first in main)")

// Hook must be the first call in main (and in TestMain of test binaries
// that confine programs). Started with the hidden launcher argument, it
// confines itself and execs the target, never returning; with the spawner
// argument it serves [Spawn] until agentls closes it; otherwise it notes
// that this binary can launch confined programs and returns.
func Hook() {
	if len(os.Args) > 1 && os.Args[1] == launcherArg {
		os.Exit(runLauncher(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == spawnerArg {
		os.Exit(runSpawner(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == groupKeeperArg {
		os.Exit(runGroupKeeper())
	}
	hookInstalled.Store(true)
}

// Wrap returns how to start the program at path (absolute) with argv,
// confined to p: the executable to start and its full argument list. The
// caller starts it like the program itself (its own dir, env, pipes and
// process group). It fails when the kernel cannot enforce p.
func Wrap(p Policy, path string, argv []string) (exe string, args []string, err error) {
	if !hookInstalled.Load() {
		return "", nil, ErrNoLauncher
	}
	if s := Supported(); !s.Filesystem {
		return "", nil, fmt.Errorf("sandbox: cannot confine on this system: %s", s.Reason)
	}
	if len(argv) == 0 {
		return "", nil, errors.New("sandbox: empty argv")
	}
	enc, err := json.Marshal(p)
	if err != nil {
		return "", nil, fmt.Errorf("sandbox: encode policy: %w", err)
	}
	exe, err = launcher()
	if err != nil {
		return "", nil, err
	}
	return exe, append([]string{exe, launcherArg, string(enc), path}, argv...), nil
}

// runLauncher is the launcher's main: args are POLICY PATH ARGV0 ARGS...
func runLauncher(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "agentls: confine: usage: "+launcherArg+" POLICY PATH ARGV0 [ARGS...]")
		return 2
	}
	// A field this launcher does not know is refused, not ignored: a
	// launcher older than the agentls that started it never confines less
	// than the policy says.
	var p Policy
	dec := json.NewDecoder(strings.NewReader(args[0]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		fmt.Fprintf(os.Stderr, "agentls: confine: bad policy: %v\n", err)
		return launcherFailed
	}
	err := confineAndExec(p, args[1], args[2:])
	// Reached only when confinement or exec failed.
	fmt.Fprintf(os.Stderr, "agentls: confine %s: %v\n", args[1], err)
	return launcherFailed
}
