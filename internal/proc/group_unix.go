//go:build unix

package proc

import (
	"os"
	"syscall"
	"time"
)

// sysGroup is the process group on Unix; its id is the leader's pid.
type sysGroup struct {
	pgid int
}

// startGate is the gated leader's script: read one line from fd 3, run the
// command ("$@") only if it says go.
const startGate = `read -r gate <&3 && [ "$gate" = go ] || exit 125; exec 3<&-; exec "$@"`

func (g *Group) start(opt Options) error {
	cmd := g.cmd
	if cmd.Err != nil {
		return cmd.Err
	}
	// The leader's parent-death signal: a reaper gets SIGTERM, so that it
	// ends what the command left before it goes.
	death := syscall.SIGKILL
	if opt.Reap && reaperWraps(cmd, g.grace) {
		death = syscall.SIGTERM
	}
	var gateW *os.File
	if opt.Gated {
		gateR, w, err := os.Pipe()
		if err != nil {
			return err
		}
		defer gateR.Close()
		gateW = w
		cmd.Args = append([]string{"/bin/sh", "-c", startGate, "sh", cmd.Path}, cmd.Args[1:]...)
		cmd.Path = "/bin/sh"
		cmd.ExtraFiles = append([]*os.File{gateR}, cmd.ExtraFiles...)
	}
	if err := startLeader(cmd, death); err != nil {
		if gateW != nil {
			gateW.Close()
		}
		return err
	}
	g.sys.pgid = cmd.Process.Pid
	g.guarded = guardWatch(g.sys.pgid, g.grace)
	if gateW != nil {
		gateW.WriteString("go\n")
		gateW.Close()
	}
	return nil
}

// Adopt takes charge of a process group that a helper process of ours
// started (the sandbox's long-lived launcher forks the commands it
// confines): the guard learns the group, and Stop and Release act on it as
// on a group Start made. pgid is the group's id, its leader's pid; the
// caller learns when the leader exits from the process that started it.
func Adopt(pgid int, grace time.Duration) *Group {
	g := &Group{pid: pgid, grace: grace, sys: sysGroup{pgid: pgid}}
	g.guarded = guardWatch(pgid, grace)
	return g
}

func (g *Group) terminate() { syscall.Kill(-g.sys.pgid, syscall.SIGTERM) }

func (g *Group) kill() { syscall.Kill(-g.sys.pgid, syscall.SIGKILL) }

func (g *Group) release() {
	if g.guarded {
		guardForget(g.sys.pgid)
	}
}
