//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package trust

import (
	"io/fs"
	"os"
	"syscall"
)

// currentUID is the user whose trust store this is (a variable for tests).
var currentUID = os.Getuid()

// foreignOwner is the owner of fi when that is not currentUID.
func foreignOwner(fi fs.FileInfo) (uid int, foreign bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), int(st.Uid) != currentUID
}
