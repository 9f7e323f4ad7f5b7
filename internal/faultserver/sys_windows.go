package main

import (
	"fmt"
	"os"
	"os/exec"
)

// startDetached starts name with args (Windows has no sessions to leave);
// with wait it waits for it to end.
func startDetached(wait bool, name string, args ...string) {
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "faultserver: start %s: %v\n", name, err)
		return
	}
	if wait {
		cmd.Wait()
	}
}

// freezeSelf: Windows has no SIGSTOP; the calling tool blocks forever
// instead (other requests are still answered).
func freezeSelf() {}

// killSelf terminates this process at once, as SIGKILL would.
func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Kill()
	}
}

// closeStdoutFD closes standard output.
func closeStdoutFD() { os.Stdout.Close() }
