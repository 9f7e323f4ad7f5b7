//go:build unix

package mcpserve

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ownedPrivate refuses a file that is not the user's own or that others
// may read or write: a token or endpoint another user planted would send
// the outside agent's calls to their listener.
func ownedPrivate(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	switch {
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	case !ok || int(sys.Uid) != os.Getuid():
		return fmt.Errorf("%s is not owned by you", path)
	case st.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s may be read or written by others (mode %v)", path, st.Mode().Perm())
	}
	return nil
}

// alive reports whether process pid runs (as this user).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || !errors.Is(err, syscall.ESRCH) && !errors.Is(err, syscall.EPERM)
}
