package testenv

import (
	"os"
	"os/exec"
	"syscall"
)

// OwnGroup gives cmd a console process group of its own; Windows has no
// process groups to kill, so cancel kills cmd alone.
func OwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// ProcessAlive reports whether a process with this pid exists.
func ProcessAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
