//go:build unix

package prompt

import (
	"os"
	"syscall"
)

// ownedByUser is git's ownership test without safe.directory: the owner is
// the effective user.
func ownedByUser(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// sameDevice reports whether two paths are on one file system, where git's
// upward search stops.
func sameDevice(a, b os.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Dev == sb.Dev
}
