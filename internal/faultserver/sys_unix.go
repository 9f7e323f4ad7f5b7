//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// startDetached starts name with args in a session of its own, or, where
// setsid is refused (a confined server), in this one, as a careless
// daemon would go on; with wait it waits for it to end.
func startDetached(wait bool, name string, args ...string) {
	for _, setsid := range []bool{true, false} {
		cmd := exec.Command(name, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
		if err := cmd.Start(); err != nil {
			fmt.Fprintf(os.Stderr, "faultserver: start %s (setsid %v): %v\n", name, setsid, err)
			continue
		}
		if wait {
			cmd.Wait()
		}
		return
	}
}

// freezeSelf stops the whole process (SIGSTOP): nothing answers any more.
func freezeSelf() { syscall.Kill(os.Getpid(), syscall.SIGSTOP) }

// killSelf kills this process with SIGKILL.
func killSelf() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }

// closeStdoutFD closes file descriptor 1 under the Go runtime's feet.
func closeStdoutFD() { syscall.Close(1) }
