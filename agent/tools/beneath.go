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
// was not there when t was checked. It never waits for a writer (a named
// pipe opens at once: O_NONBLOCK); readBeneath reads only regular files.
func openBeneath(t target) (*os.File, error) {
	rel, err := t.rel()
	if err != nil {
		return nil, err
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

// rel is t.Real relative to t.Folder ("." for the folder itself), or an
// error when it is not inside it.
func (t target) rel() (string, error) {
	rel, err := filepath.Rel(t.Folder, t.Real)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", fmt.Errorf("%s is not inside the workspace folder %s", t.Real, t.Folder)
	}
	return rel, nil
}

// openInRoot is openNoLinks through an os.Root, where openat2 is not to
// be had: links inside the folder are followed, none out of it.
func openInRoot(folder, rel string) (*os.File, error) {
	root, err := os.OpenRoot(folder)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if escapesRoot(err) {
		return nil, &fs.PathError{Op: "open", Path: rel, Err: syscall.EXDEV}
	}
	return f, err
}

// escapesRoot reports whether err is an os.Root's refusal of a path out
// of it. os does not export that error, so its text is matched, whole and
// only in the error under the path: a file that is merely named
// escapes_test.go and is missing is not there, not an escape.
func escapesRoot(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent"
}

// maxSnapshotFile is the most a file's text may be for agentls to read it
// whole (an edit's base; read_file and read_document read less).
const maxSnapshotFile = 4 * maxReadFile

// tooBigError is a file bigger than its reader reads.
type tooBigError struct {
	path        string
	size, limit int64
}

func (e *tooBigError) Error() string {
	return fmt.Sprintf("%s is %d bytes, more than agentls reads whole (%d)", e.path, e.size, e.limit)
}

// readBeneath is t's whole content, read through openBeneath: only a
// regular file (a named pipe nobody writes would hold the read forever,
// a device never ends) of at most limit bytes (a sparse file of a
// terabyte takes no disk, but reading it whole takes the memory).
func readBeneath(t target, limit int64) ([]byte, error) {
	f, err := openBeneath(t)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%v): only files are read", t.Path, st.Mode().Type())
	}
	if st.Size() > limit {
		return nil, &tooBigError{path: t.Path, size: st.Size(), limit: limit}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		return nil, &tooBigError{path: t.Path, size: int64(len(b)), limit: limit}
	}
	return b, err
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
