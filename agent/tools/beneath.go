package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// A read tool checks a path (confine: every link resolved, inside a
// workspace folder) and then, maybe after a card waited for the user,
// reads it. Whoever may write the workspace (an outside agent in a
// sandbox that lets it write there) can swap a folder on the way for a
// link out of it between the two: reading t.Real by name would then read
// wherever the link leads. So the read opens t.Real through its folder's
// descriptor and lets the kernel refuse every link on the way (t.Real has
// none: confine resolved them), where it can (openat2 RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS on Linux); elsewhere through an os.Root of the
// folder, which the kernel keeps inside it.

// openBeneath opens t's file or folder for reading, refusing a link that
// was not there when t was checked.
func openBeneath(t target) (*os.File, error) {
	rel, err := filepath.Rel(t.Folder, t.Real)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return nil, fmt.Errorf("%s is not inside the workspace folder %s", t.Real, t.Folder)
	}
	f, err := openNoLinks(t.Folder, rel)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EXDEV) {
			return nil, fmt.Errorf("%s changed into a link after it was checked, so it is not read: read it again", t.Path)
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = t.Real
		}
		return nil, err
	}
	return f, nil
}

// openInRoot is openNoLinks through an os.Root, where openat2 is not to
// be had: links inside the folder are followed, none out of it.
func openInRoot(folder, rel string) (*os.File, error) {
	root, err := os.OpenRoot(folder)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil && strings.Contains(err.Error(), "escapes") {
		return nil, &fs.PathError{Op: "open", Path: rel, Err: syscall.EXDEV}
	}
	return f, err
}

// readBeneath is t's whole content, read through openBeneath.
func readBeneath(t target) ([]byte, error) {
	f, err := openBeneath(t)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// readDirBeneath is t's entries, sorted by name, read through openBeneath.
func readDirBeneath(t target) ([]fs.DirEntry, error) {
	f, err := openBeneath(t)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}
