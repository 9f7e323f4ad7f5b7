//go:build !linux

package tools

import "os"

// openNoLinks opens rel below folder through an os.Root (no openat2 here).
func openNoLinks(folder, rel string) (*os.File, error) { return openInRoot(folder, rel) }
