//go:build unix

package mcpserve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// privateSocket refuses a socket that is not the user's own, or whose
// folder someone else may write (and so could have put it there).
func privateSocket(path string) error {
	dir, err := os.Lstat(filepath.Dir(path))
	if err != nil {
		return err
	}
	if sys, ok := dir.Sys().(*syscall.Stat_t); !dir.IsDir() || !ok || int(sys.Uid) != os.Getuid() || dir.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is not a folder only you may write", filepath.Dir(path))
	}
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); st.Mode()&os.ModeSocket == 0 || !ok || int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("%s is not a socket of yours", path)
	}
	return nil
}

// alive reports whether process pid runs (as this user).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || !errors.Is(err, syscall.ESRCH) && !errors.Is(err, syscall.EPERM)
}
