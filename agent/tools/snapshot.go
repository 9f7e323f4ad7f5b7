package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
)

// ErrFileChanged is what a Workspace's WriteFile returns (wrapped) when
// the file is no longer the Snapshot the edit was computed from: the
// editor's buffer moved on, or the editor refused a versioned edit. The
// write tools then read the file again and re-apply or refuse the edit.
var ErrFileChanged = errors.New("the file changed since the edit was computed from it")

// ErrNotOpen is what a Workspace's WriteFile returns (wrapped) for a file
// the editor has not opened with it (LSP: no didOpen). The editor may still
// hold the file in a buffer with unsaved text the agent never saw (a
// language the editor does not attach agentls to), and an edit sent to the
// editor would land over it; the caller writes the disk instead, where the
// editor sees a change on disk and warns before its buffer overwrites it.
var ErrNotOpen = errors.New("the editor had not opened it with agentls")

// Snapshot is a file as an edit was computed from it. Between the card
// and the write the user may have typed into the buffer or changed the
// file on disk; the write tools compare the file with its Snapshot just
// before writing, and a Workspace that writes through an editor hands the
// editor Version so that it refuses a stale edit itself.
type Snapshot struct {
	// Text is the file's text: the editor's buffer when the editor has it,
	// else the disk's; "" when the file does not exist.
	Text string
	// Exists is false for a file that did not exist (write_file creates it).
	Exists bool
	// Version is the editor's version of the open buffer Text came from,
	// when the editor numbers the states of its buffers (LSP's document
	// version); nil otherwise (the disk, ACP's fs/read_text_file).
	Version *int32
}

// same reports whether the file is still as s has it: the same existence
// and the same text, byte for byte (a version alone may move without a
// change, as an undo and redo do).
func (s Snapshot) same(o Snapshot) bool { return s.Exists == o.Exists && s.Text == o.Text }

// VersionedBuffers is a Workspace whose editor numbers every state of an
// open buffer (LSP). readSnapshot takes text and version from it in one
// step, so the version is the one of that very text.
type VersionedBuffers interface {
	// OpenVersion is the open buffer's text and the editor's version of it.
	OpenVersion(path string) (text string, version int32, ok bool)
}

// readSnapshot is the file as the agent sees it (readText) with what
// identifies that state. A missing file is a Snapshot that does not exist.
func readSnapshot(ws Workspace, t target) (Snapshot, error) {
	snap, _, err := snapshotAt(ws, t)
	return snap, err
}

// snapshotAt is readSnapshot and the path an edit of it goes to: the one
// whose buffer is open (the editor may have the file open under its real
// path while the model names a link to it), else t.Path.
func snapshotAt(ws Workspace, t target) (Snapshot, string, error) {
	paths := []string{t.Path}
	if t.Real != t.Path {
		paths = append(paths, t.Real)
	}
	for _, p := range paths {
		if vb, ok := ws.(VersionedBuffers); ok {
			if text, v, ok := vb.OpenVersion(p); ok {
				return Snapshot{Text: text, Exists: true, Version: &v}, p, nil
			}
			continue
		}
		if text, ok := ws.OpenText(p); ok {
			return Snapshot{Text: text, Exists: true}, p, nil
		}
	}
	b, err := readBeneath(t, maxSnapshotFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Snapshot{}, t.Path, nil
	case err != nil:
		return Snapshot{}, t.Path, err
	}
	return Snapshot{Text: string(b), Exists: true}, t.Path, nil
}

// rebaseFunc computes an edit's text again from the file's current text,
// or says why it no longer applies. nil: the edit cannot be re-applied
// (write_file replaces the whole file, so any change there would be lost).
type rebaseFunc func(current string) (text string, why error)

// staleError is a write refused because the file changed under it.
type staleError struct {
	tool, path string
	why        string
}

func (e *staleError) Error() string {
	return fmt.Sprintf("%s: %s changed while the edit waited for approval (%s), so nothing was written and the change there is kept: read the file again and redo the edit",
		e.tool, e.path, e.why)
}

func (e *staleError) Unwrap() error { return ErrFileChanged }

// commitWrite writes text, computed from base, to t, unless the file is no
// longer base: then rebase gives the text to write from the current one,
// or the write is refused with a *staleError and nothing is written. The
// comparison and the write happen under t's write lock, so two tasks of
// this process never interleave theirs; a Workspace that writes through
// the editor hands it the version compared, so the editor refuses an edit
// that a keystroke after the comparison made stale. rebased says the text
// written is not the one approved (other changes were kept).
func commitWrite(ctx context.Context, env *Env, tool string, t target, base Snapshot, text string, rebase rebaseFunc) (where string, rebased bool, err error) {
	unlock := writeLocks.lock(t.Real)
	defer unlock()
	ctx = WithToolName(ctx, tool)
	// Twice at most: an editor that refuses the edit as stale has changed
	// the buffer after the comparison, so the second try compares again.
	for attempt := 0; ; attempt++ {
		// The path may have become a link while the card was open (the
		// file, or a folder on its way, moved away and a link put in its
		// place): the card named the file it led to then, so a path that
		// now leads elsewhere, maybe out of the workspace, is not written.
		if why := retargeted(t); why != "" {
			return "", false, &staleError{tool, t.Path, why}
		}
		cur, path, err := snapshotAt(env.Workspace, t)
		if err != nil {
			return "", false, fmt.Errorf("%s: read %s again before writing: %w", tool, t.Path, err)
		}
		if !cur.same(base) {
			switch {
			case rebase == nil:
				return "", false, &staleError{tool, t.Path, changeOf(base, cur)}
			case !cur.Exists:
				return "", false, &staleError{tool, t.Path, "it was deleted"}
			}
			next, why := rebase(cur.Text)
			if why != nil {
				return "", false, &staleError{tool, t.Path, why.Error()}
			}
			text, rebased = next, true
		}
		base = cur // the newest state, with its version
		if env.Checkpoint != nil {
			env.Checkpoint.Before(t.Real, cur)
		}
		where, err := writeOnce(ctx, env, t, path, base, text)
		if err == nil && env.Checkpoint != nil {
			env.Checkpoint.After(t.Real, text)
		}
		if where != "" || err == nil {
			return where, rebased, err
		}
		if errors.Is(err, ErrFileChanged) && attempt == 0 {
			continue
		}
		if errors.Is(err, ErrFileChanged) {
			return "", false, &staleError{tool, t.Path, "it kept changing in the editor"}
		}
		return "", false, fmt.Errorf("the editor could not apply the edit to %s: %w", t.Path, err)
	}
}

// writeOnce hands text to the editor, or writes the disk when the editor
// cannot apply it or has not opened the file. where is "" when the
// editor refused the edit (err says why).
func writeOnce(ctx context.Context, env *Env, t target, path string, base Snapshot, text string) (where string, err error) {
	applied, err := env.Workspace.WriteFile(ctx, path, base, text)
	if errors.Is(err, ErrNotOpen) {
		// base came from the disk just now (no buffer is open), under
		// the write lock: the rename replaces exactly what was compared.
		return "written on disk: " + ErrNotOpen.Error(), writeDisk(t, text)
	}
	if err != nil {
		return "", err
	}
	if applied {
		return "editor", nil
	}
	return "disk", writeDisk(t, text)
}

// retargeted says how t.Path no longer leads to t.Real, the file the card
// named, or "" when it still does.
func retargeted(t target) string {
	now, err := resolveExisting(t.Path)
	switch {
	case err != nil:
		return fmt.Sprintf("its path no longer resolves: %v", err)
	case now != t.Real:
		return fmt.Sprintf("its path now leads through a link to %s, which the card did not name", now)
	}
	return ""
}

// changeOf says how the file changed from base to cur, for a refusal.
func changeOf(base, cur Snapshot) string {
	switch {
	case !base.Exists && cur.Exists:
		return "it was created"
	case base.Exists && !cur.Exists:
		return "it was deleted"
	}
	return "its text changed in the editor or on disk"
}

// writeLocks serializes the check-then-write of each file (by real path)
// across the tasks of this process.
var writeLocks = keyedMutex{m: map[string]*keyedEntry{}}

// keyedMutex is one mutex per key, dropped when nobody holds or waits on it.
type keyedMutex struct {
	mu sync.Mutex
	m  map[string]*keyedEntry
}

type keyedEntry struct {
	mu   sync.Mutex
	refs int
}

func (k *keyedMutex) lock(key string) (unlock func()) {
	k.mu.Lock()
	e := k.m[key]
	if e == nil {
		e = &keyedEntry{}
		k.m[key] = e
	}
	e.refs++
	k.mu.Unlock()
	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		k.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(k.m, key)
		}
		k.mu.Unlock()
	}
}
