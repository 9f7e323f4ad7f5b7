//go:build unix

package sandbox

import (
	"fmt"
	"os"
	"syscall"
)

// ownedLikeSelf refuses a launcher owned by someone other than root or
// the owner of agentls's own executable.
func ownedLikeSelf(fi os.FileInfo, self string) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	owner := uint32(os.Getuid())
	if sfi, err := os.Stat(self); err == nil {
		if sst, ok := sfi.Sys().(*syscall.Stat_t); ok {
			owner = sst.Uid
		}
	}
	if st.Uid != 0 && st.Uid != owner {
		return fmt.Errorf("belongs to uid %d, neither root nor agentls's owner (uid %d)", st.Uid, owner)
	}
	return nil
}
