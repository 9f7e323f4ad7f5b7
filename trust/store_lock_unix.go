//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package trust

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on path (created 0600 if missing) and
// returns its release. flock locks belong to the open file description, so
// two Stores in one process exclude each other like two processes do.
func lockFile(path string) (func(), error) {
	fh, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(fh.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		fh.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(fh.Fd()), syscall.LOCK_UN)
		fh.Close()
	}, nil
}
