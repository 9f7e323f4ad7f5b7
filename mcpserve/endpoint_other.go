//go:build !unix

package mcpserve

import (
	"fmt"
	"os"
)

// ownedPrivate refuses what is not a regular file; the folder is the
// user's own profile, which Windows keeps private.
func ownedPrivate(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	return nil
}

// alive cannot be told without a handle here: a dead session's listener
// refuses the connection instead.
func alive(int) bool { return true }

// privateSocket needs the socket to exist; the folder is the user's own
// profile.
func privateSocket(path string) error {
	_, err := os.Lstat(path)
	return err
}
