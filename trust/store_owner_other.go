//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package trust

import "io/fs"

// currentUID is unused where files have no unix owner.
var currentUID = -1

// foreignOwner is never true where files have no unix owner.
func foreignOwner(fs.FileInfo) (int, bool) { return 0, false }
