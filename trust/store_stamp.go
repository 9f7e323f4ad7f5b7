package trust

import (
	"io/fs"
	"os"
)

// sameStamp reports whether two stats of trust.json are of the same file,
// unchanged: same file, size, modification time and mode, and where the
// system says them, the same change time and owner (sameSys). A write by
// agentls is a rename, so a new file; an edit in place moves the change
// time, which no program can set back.
func sameStamp(a, b fs.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.Size() == b.Size() &&
		a.ModTime().Equal(b.ModTime()) && a.Mode() == b.Mode() && sameSys(a, b)
}
