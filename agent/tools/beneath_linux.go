//go:build linux

package tools

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// openNoLinks opens rel below folder with openat2: RESOLVE_BENEATH keeps
// it below, RESOLVE_NO_SYMLINKS refuses every link on the way (ELOOP).
// A kernel without openat2 (before 5.6, or a seccomp filter refusing it)
// falls back to an os.Root.
func openNoLinks(folder, rel string) (*os.File, error) {
	dir, err := unix.Open(folder, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: folder, Err: err}
	}
	defer unix.Close(dir)
	fd, err := unix.Openat2(dir, rel, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	switch {
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
		return openInRoot(folder, rel)
	case err != nil:
		return nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	return os.NewFile(uintptr(fd), rel), nil
}
