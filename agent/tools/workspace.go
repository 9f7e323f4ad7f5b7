package tools

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Workspace is the agent's view of the editor: unsaved buffers and edits that
// land in the editor (and its undo). Implemented by server/ over LSP and by
// cmd/agentls over the disk.
type Workspace interface {
	// Folders are the workspace roots, absolute paths.
	Folders() []string
	// OpenText returns the open buffer's text for an absolute path, if open.
	OpenText(path string) (text string, ok bool)
	// WriteFile replaces a file's whole text through the editor with text
	// computed from base, the file as the caller read it just before (under
	// its write lock). When the editor's buffer is no longer base, or the
	// editor refuses the edit as stale (given base.Version), it returns an
	// error wrapping [ErrFileChanged] and the editor keeps its text. applied
	// is false when the editor cannot apply edits; the caller then writes
	// the disk. For a file the editor has not opened with the Workspace,
	// it returns [ErrNotOpen] and sends nothing: the caller writes the disk
	// and says so.
	WriteFile(ctx context.Context, path string, base Snapshot, text string) (applied bool, err error)
}

// diskWorkspace is the Workspace of `agentls run`: one folder, no editor, so
// reads see the disk and writes go to the disk.
type diskWorkspace struct{ root string }

// DiskWorkspace is a Workspace over the disk rooted at folder: no open
// buffers, and WriteFile reports applied=false so the caller writes the disk.
func DiskWorkspace(folder string) Workspace { return diskWorkspace{root: folder} }

func (w diskWorkspace) Folders() []string              { return []string{w.root} }
func (w diskWorkspace) OpenText(string) (string, bool) { return "", false }
func (w diskWorkspace) WriteFile(context.Context, string, Snapshot, string) (bool, error) {
	return false, nil
}

// target is a path the file tools may touch: Path as the editor names it
// (for buffers and edits) and Real with every symlink resolved (for the
// disk), inside Folder, the workspace folder (resolved) that holds it.
type target struct {
	Path   string
	Real   string
	Folder string
}

// confine resolves p (relative to the first folder when not absolute) and
// refuses anything whose real location is outside every workspace folder.
// It stops `../`, absolute paths and symlinks from reaching files the user
// never opened to the agent (e.g. ~/.ssh through a planted link).
func confine(folders []string, p string) (target, error) {
	if strings.TrimSpace(p) == "" {
		return target{}, errors.New("path is required: give a path relative to the workspace folder or an absolute path inside it")
	}
	if len(folders) == 0 {
		return target{}, errors.New("no workspace folder is open, so file tools cannot reach any file")
	}
	folders, err := usableFolders(folders)
	if err != nil {
		return target{}, err
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(folders[0], abs)
	}
	abs = filepath.Clean(abs)
	real, err := resolveExisting(abs)
	if err != nil {
		return target{}, fmt.Errorf("resolve %q: %w", p, err)
	}
	for _, f := range folders {
		rf, err := filepath.EvalSymlinks(f)
		if err != nil {
			continue
		}
		if within(rf, real) {
			return target{Path: abs, Real: real, Folder: rf}, nil
		}
	}
	return target{}, fmt.Errorf("path %q is outside the workspace folders (%s): file tools only reach files inside them (symlinks are followed before checking)",
		p, strings.Join(folders, ", "))
}

// resolveExisting follows symlinks through the longest existing prefix of
// abs; the missing rest (a file about to be created) is appended as is.
func resolveExisting(abs string) (string, error) {
	rest := ""
	cur := abs
	for {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			if rest == "" {
				return r, nil
			}
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		// A link whose target is missing resolves to nothing, so it would pass
		// as a new file inside while an editor writing it creates the target
		// wherever it points (a committed link to ~/.ssh/authorized_keys).
		if st, lerr := os.Lstat(cur); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
			dest, _ := os.Readlink(cur)
			return "", fmt.Errorf("%s is a symlink to %q, which does not exist: file tools do not follow dangling links", cur, dest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", err
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	if p == dir {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// readText is the file's text as the agent should see it: the editor's
// unsaved buffer when open, else the disk.
func readText(ws Workspace, t target) (string, error) {
	snap, err := readSnapshot(ws, t)
	if err != nil {
		return "", err
	}
	if !snap.Exists {
		return "", &fs.PathError{Op: "open", Path: t.Real, Err: fs.ErrNotExist}
	}
	return snap.Text, nil
}

// writeDisk replaces t's file atomically, keeping its mode, creating
// parents. Every step goes through an os.Root of t's workspace folder, so
// the kernel keeps the write inside it even when a folder on the way is
// swapped for a link out of it after the last check (a rename race).
func writeDisk(t target, text string) error {
	if err := writeInRoot(t, text); err != nil {
		return fmt.Errorf("write %s: %w", t.Real, err)
	}
	return nil
}

func writeInRoot(t target, text string) error {
	rel, err := filepath.Rel(t.Folder, t.Real)
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return fmt.Errorf("it is not a file inside the workspace folder %s", t.Folder)
	}
	root, err := os.OpenRoot(t.Folder)
	if err != nil {
		return err
	}
	defer root.Close()
	mode := os.FileMode(0o644)
	if st, err := root.Stat(rel); err == nil {
		if st.IsDir() {
			return errors.New("it is a directory")
		}
		mode = st.Mode().Perm()
	}
	dir := filepath.Dir(rel)
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+filepath.Base(rel)+".agentls-"+rand.Text())
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer root.Remove(tmp)
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return root.Rename(tmp, rel)
}
