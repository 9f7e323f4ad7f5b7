package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// confineAndExec restricts this thread to p and replaces the process with
// the program at path. It returns only on failure. Landlock, no_new_privs
// and seccomp are per thread: the goroutine stays locked so that the exec
// happens from the thread that carries them (execve ends the others).
func confineAndExec(p Policy, path string, argv []string) error {
	runtime.LockOSThread()
	if err := keepOnlyStdio(); err != nil {
		return err
	}
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
	return installFilter(filterRules{network: p.Network, tcp: abi >= 4 && len(p.Connect)+len(p.Bind) > 0,
		listen: abi >= 4 && len(p.Bind) > 0, pinNotify: pinNotify})
}

// keepOnlyStdio marks every descriptor from 3 up close-on-exec, so that a
// program this process starts holds its standard input, output and error
// and nothing else. Go starts children with what their parent left open
// without close-on-exec, and agentls may be started with such descriptors
// (an editor, a terminal or a desktop session leaks them: a D-Bus or X11
// connection, an ssh-agent socket): a confined program wrote to such a
// socket with the network off, no socket call needed. (Landlock, which
// close_range's flag predates, guarantees Linux 5.13 or later.)
func keepOnlyStdio() error {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fmt.Errorf("close_range: %w", err)
	}
	return nil
}
