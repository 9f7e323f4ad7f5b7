package sandbox

import (
	"fmt"
	"os"
	"time"

	"github.com/agentls/agentls/internal/proc"
)

// CanSpawn says whether [Spawn] can confine here: it fails, saying why,
// when the kernel has no Landlock or this binary has no launcher.
func CanSpawn() error {
	if !hookInstalled.Load() {
		return ErrNoLauncher
	}
	if s := Supported(); !s.Filesystem {
		return fmt.Errorf("sandbox: cannot confine on this system: %s", s.Reason)
	}
	_, err := Launcher()
	return err
}

// Cmd is a program for [Spawn] to start confined.
type Cmd struct {
	// Path is the program, absolute with its links resolved; Args its
	// argv, Args[0] included.
	Path string
	Args []string
	// Dir is where it runs; Env its whole environment. TMPDIR is replaced
	// by the command's own temporary folder.
	Dir string
	Env []string
	// Stdout and Stderr receive its output (stdin is /dev/null).
	Stdout, Stderr *os.File
	// Grace is how long its group has between SIGTERM and SIGKILL when it
	// is stopped or agentls ends.
	Grace time.Duration
}

// Process is a command [Spawn] started, the leader of its own process
// group. Wait for it, and then call Release, exactly as for a group
// started by package proc.
type Process struct {
	// Pid is the command's pid, which is also its process group's id.
	Pid int
	// TempDir is its private temporary folder (its TMPDIR), the only
	// place it may write; it is removed once the command has ended.
	TempDir string

	group *proc.Group
	wait  func() int
	cpu   time.Duration // the command's CPU time, once it has ended
	// unstick ends the launcher that reports this command's end, for when
	// it did not report it in time after a stop; launcher is its pid.
	unstick  func()
	launcher int
	// ended is closed once the launcher reported the command's end (or
	// died); nil for a command no launcher started.
	ended chan struct{}
}

// launcherReportGrace is how long Stop waits, after the command's group
// was killed, for its launcher to report the end. A launcher that does not
// is stopped (SIGSTOP, which a confined command can send it on Landlock ABI
// < 6) or stuck: Stop then ends it, so Wait returns instead of hanging.
var launcherReportGrace = 3 * time.Second

// Wait blocks until the command has exited and returns its exit code, or
// -1 when a signal ended it (or its launcher died under it).
func (p *Process) Wait() int { return p.wait() }

// Stop ends the command's group: SIGTERM, then SIGKILL once it exited or
// the grace period is over (see [proc.Group.Stop]). For a command a
// launcher started, its exit is the launcher's report (exited is not
// needed), and a launcher that has not reported it launcherReportGrace
// after the SIGKILL is ended, so Wait returns.
func (p *Process) Stop(exited <-chan struct{}) {
	if p.ended == nil {
		p.group.Stop(exited)
		return
	}
	p.group.Stop(p.ended)
	t := time.NewTimer(launcherReportGrace)
	defer t.Stop()
	select {
	case <-p.ended:
	case <-t.C:
		p.unstick()
	}
}

// launcherPid is the pid of the launcher that started p (0 if none).
func (p *Process) launcherPid() int { return p.launcher }

// Release is called once Wait returned: it kills whatever the command
// left in its group and tells the guard the group is gone.
func (p *Process) Release() { p.group.Release() }
