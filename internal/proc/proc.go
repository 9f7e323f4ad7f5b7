package proc

import (
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// guardArg is the hidden first argument that turns this binary into the
// process-group guard.
const guardArg = "__agentls_guard"

// reaperArg is the hidden first argument that turns this binary into the
// reaper of one command (see [Options.Reap]):
// `agentls __agentls_reaper GRACE_MS PATH ARGV0 ARGS...`.
const reaperArg = "__agentls_reaper"

var hookInstalled atomic.Bool

// Hook must be the first call in main (and in TestMain of any test binary
// that starts processes through [Start]). Started with the hidden guard
// argument, it runs the guard and exits; otherwise it notes that this
// binary can act as its own guard and returns at once.
//
// Why a guard: the parent-death signal reaches only our direct child (and
// exists only on Linux), so when agentls is killed with SIGKILL the
// grandchildren of a server started through npx or a shell would live on.
// The guard is one small process per agentls that outlives it by a moment:
// it learns every process group through a pipe and, when the pipe ends
// because agentls is gone, terminates those groups. The program started
// as the guard (and as each reaper) is the one [UseHelper] names, else this
// binary re-executed. On Windows the Job object does this job and no guard
// is started.
func Hook() {
	Helper()
	hookInstalled.Store(true)
}

// Helper runs the guard or a reaper when this binary was started as one
// (and never returns then); otherwise it returns at once. It is what a
// small program calls to serve as agentls's guard and reaper (see
// [UseHelper]); unlike [Hook] it does not make the caller a guard of its
// own groups.
func Helper() {
	if len(os.Args) > 1 && os.Args[1] == guardArg {
		os.Exit(runGuard())
	}
	if len(os.Args) > 1 && os.Args[1] == reaperArg {
		os.Exit(runReaper(os.Args[2:]))
	}
}

var helper struct {
	sync.Mutex
	find func() string
	path string // worked out; "" until then
}

// UseHelper names the program started as the guard and as each reaper:
// find is asked once, when the first of them starts, and returns the path
// of a program whose main calls [Helper] (agentls-sandbox, a few MB where
// a second agentls holds 12), or "" for this executable itself. Without
// UseHelper this executable serves, re-executed.
func UseHelper(find func() string) {
	helper.Lock()
	defer helper.Unlock()
	helper.find, helper.path = find, ""
}

// helperExe is the program to start as the guard or a reaper.
func helperExe() (string, error) {
	helper.Lock()
	defer helper.Unlock()
	if helper.path == "" && helper.find != nil {
		helper.path = helper.find()
	}
	if helper.path != "" {
		return helper.path, nil
	}
	return os.Executable()
}

// SetHookForTest turns the guard off (false) or back on (true) for tests of
// what happens without [Hook]; it returns the previous setting.
func SetHookForTest(on bool) (was bool) { return hookInstalled.Swap(on) }

// Options say how a group is started.
type Options struct {
	// Grace is how long the group has between the request to stop
	// (SIGTERM) and the kill, in Stop and in the guard.
	Grace time.Duration
	// Gated makes sure nothing of the command runs before the guard knows
	// its group: on Unix the group's leader is a shell that waits for a
	// "go" on fd 3 before it execs the command, and Start writes "go" only
	// once the group is registered. If agentls dies in between, the gate
	// reads end of file and the command never runs. The command's exit
	// status is 125 if the gate was not opened. On Windows every start is
	// gated (the child starts suspended), so this changes nothing there.
	Gated bool
	// Reap runs the command under a reaper (Linux, with [Hook]): this
	// binary, re-executed as a child subreaper, starts the command and,
	// once the command ends or the group is asked to stop, ends every
	// process it started, those that left the group (setsid, a double
	// fork) included, before it exits with the command's status. Without
	// it a daemon the command detached outlives the group. A confined
	// program needs none: it cannot leave its group (see package sandbox).
	Reap bool
}

// Group is a started process and everything it starts: a process group on
// Unix, a Job object on Windows.
type Group struct {
	cmd     *exec.Cmd // nil for a group taken over with Adopt
	pid     int
	grace   time.Duration
	guarded bool
	sys     sysGroup
}

// Start starts cmd (not yet started, SysProcAttr unset) in a group of its
// own. The caller waits for cmd as usual and then calls [Group.Release].
func Start(cmd *exec.Cmd, opt Options) (*Group, error) {
	g := &Group{cmd: cmd, grace: opt.Grace}
	if err := g.start(opt); err != nil {
		return nil, err
	}
	return g, nil
}

// Pid is the process id of the group's leader (the started command).
func (g *Group) Pid() int {
	if g.cmd == nil {
		return g.pid
	}
	return g.cmd.Process.Pid
}

// Guarded reports whether something outside this process ends the group if
// this process dies without calling Stop: the guard on Unix, the Job object
// on Windows.
func (g *Group) Guarded() bool { return g.guarded }

// Stop ends the group: it asks it to stop (SIGTERM to the group on Unix;
// nothing on Windows, which has no such signal), waits until exited is
// closed or the grace period ends, and then kills the whole group. The
// caller still waits for the command and calls Release.
func (g *Group) Stop(exited <-chan struct{}) {
	select {
	case <-exited:
	default:
		g.terminate()
		t := time.NewTimer(g.grace)
		select {
		case <-exited:
		case <-t.C:
		}
		t.Stop()
	}
	g.kill()
}

// Release is called once the leader was reaped: it kills whatever the
// leader left behind in its group (`sleep 100 &`), tells the guard the
// group is gone and frees what the group held. Call it exactly once.
func (g *Group) Release() {
	g.kill()
	g.release()
}
