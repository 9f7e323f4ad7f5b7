//go:build unix

package testenv

import (
	"os/exec"
	"syscall"
)

// OwnGroup makes cmd the leader of a process group of its own and makes its
// context's cancel kill the whole group, so a timeout ends what it started
// too.
func OwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// ProcessAlive reports whether a process with this pid exists.
func ProcessAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
