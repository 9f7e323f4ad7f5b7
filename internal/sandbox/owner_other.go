//go:build !unix

package sandbox

import "os"

func ownedLikeSelf(os.FileInfo, string) error { return nil }
