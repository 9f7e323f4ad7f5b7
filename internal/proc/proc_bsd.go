//go:build unix && !linux

package proc

import (
	"os/exec"
	"syscall"
)

// startLeader starts cmd as the leader of a new process group. These
// systems have no parent-death signal: the guard is what ends the group
// when agentls is killed.
func startLeader(cmd *exec.Cmd, _ syscall.Signal) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd.Start()
}
