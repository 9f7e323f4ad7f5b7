package trust

import (
	"io/fs"
	"syscall"
)

// sameSys compares the change times and owners of two stats.
func sameSys(a, b fs.FileInfo) bool {
	x, ok1 := a.Sys().(*syscall.Stat_t)
	y, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && x.Ctimespec == y.Ctimespec && x.Uid == y.Uid
}
