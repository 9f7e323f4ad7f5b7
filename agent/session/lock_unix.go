//go:build unix

package session

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive flock of f without waiting: errLockBusy when
// another open file description holds it. The kernel drops it when the
// process dies, so a killed agentls never leaves a session locked.
func lockFile(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return errLockBusy
	}
	return nil // taken, or a file system without flock: no lock, as before
}
