//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package trust

import "errors"

// lockFile is unsupported here: without a lock two processes could lose each
// other's approvals, so changes fail instead.
func lockFile(path string) (func(), error) {
	return nil, errors.New("file locking is not supported on this system")
}
