package proc

import (
	"os/exec"
	"runtime"
	"syscall"
)

// startLeader starts cmd as the leader of a new process group with a
// parent-death signal. Pdeathsig fires when the thread that forked exits,
// not the process: fork from a locked thread, which Go keeps alive after
// unlocking.
func startLeader(cmd *exec.Cmd, death syscall.Signal) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: death}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Start()
}
