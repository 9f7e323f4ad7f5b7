package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// confineAndExec restricts this thread to p and replaces the process with
// the program at path. It returns only on failure. Landlock, no_new_privs
// and seccomp are per thread: the goroutine stays locked so that the exec
// happens from the thread that carries them (execve ends the others).
func confineAndExec(p Policy, path string, argv []string) error {
	runtime.LockOSThread()
	// This process is already the leader of the group agentls made for it
	// (proc.Start), so no setpgid is left to allow.
	if _, err := confineThread(p, false); err != nil {
		return err
	}
	if err := syscall.Exec(path, argv, os.Environ()); err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	return nil
}

// confineThread restricts the calling thread, which the caller has locked
// and never unlocks, to p: no capabilities (see dropCapabilities),
// no_new_privs, a Landlock domain of its own and the seccomp filter (see
// syscallFilter). What the thread execs or forks inherits all four and
// can never lift them. With pinNotify the filter hands setpgid to the
// returned notification descriptor (see answerSetpgid); otherwise the
// descriptor is -1.
func confineThread(p Policy, pinNotify bool) (int, error) {
	abi := landlockABI()
	if err := restrictThread(p, abi); err != nil {
		return -1, err
	}
	if err := dropCapabilities(); err != nil {
		return -1, err
	}
	// With Landlock's TCP rules (ABI 4) plain TCP sockets may be made and
	// the port rules decide; without them no socket at all, not even TCP.
	return installFilter(filterRules{network: p.Network, tcp: abi >= 4 && len(p.Connect)+len(p.Bind) > 0, pinNotify: pinNotify})
}
