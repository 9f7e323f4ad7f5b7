package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/config"
)

// storeVersion is the version of trust.json this code reads and writes.
const storeVersion = 1

// ErrCorrupt is wrapped by every error about a trust file that cannot be
// read as a trust store. Such a file trusts nothing.
var ErrCorrupt = errors.New("trust store is corrupt")

// Store is the persisted trust state: launch approvals and saved rules
// (rules.go) per workspace root, and "always allow" tool decisions bound to
// a tool definition hash.
//
// The file is JSON, mode 0600 in a 0700 directory. Every change is a
// read-modify-write under an exclusive flock on "<path>.lock" and lands with
// an atomic rename, so two agentls processes (or two Stores in one process)
// writing at once never lose an update and a reader never sees half a file.
//
// A corrupt file (unparsable, an unknown version, owned or writable by other users)
// trusts nothing: LaunchState reports NeedsApproval together with an error
// that says to move the file aside, and every change fails with that error
// rather than overwriting it, so nobody's approvals vanish silently.
//
// Reads are cached: the parsed file is kept with what a stat said of it
// (same file by os.SameFile, size, modification time, mode, and on Linux
// and macOS its change time and owner), and a read that stats the same
// file unchanged returns it without opening the file. Any write, by this
// process or another agentls (a rename: a new file), or an edit in place
// (a new change time) is read again. The policy reads the store on every
// tool call, twice; a stat is what that costs now.
type Store struct {
	path   string
	frozen *frozenRead // set on a Policy.Snapshot copy: reads return it, writes fail

	mu     sync.Mutex
	cached *storeFile  // the last good read; never handed to update's change
	stamp  fs.FileInfo // what the stat said of the file cached came from
}

// storeFile is the on-disk shape of trust.json.
type storeFile struct {
	Version     int                       `json:"version"`
	Workspaces  map[string]*workspaceFile `json:"workspaces"`
	AlwaysAllow map[string]alwaysAllow    `json:"alwaysAllow"`
}

type workspaceFile struct {
	Servers map[string]approval `json:"servers"`
	// Rules are the workspace's saved "always allow" rules (rules.go).
	Rules []Rule `json:"rules,omitempty"`
}

// workspace is root's entry, made when missing.
func (f *storeFile) workspace(root string) *workspaceFile {
	key := filepath.Clean(root)
	w := f.Workspaces[key]
	if w == nil {
		w = &workspaceFile{Servers: map[string]approval{}}
		f.Workspaces[key] = w
	}
	return w
}

// empty reports whether the entry holds nothing worth keeping.
func (w *workspaceFile) empty() bool { return len(w.Servers) == 0 && len(w.Rules) == 0 }

type approval struct {
	Fingerprint string    `json:"fingerprint"`
	ApprovedAt  time.Time `json:"approvedAt"`
}

type alwaysAllow struct {
	DefinitionHash string    `json:"definitionHash"`
	AllowedAt      time.Time `json:"allowedAt"`
}

// OpenStore opens (without creating) the store at path. Nothing is read or
// written until a method is called; a missing file trusts nothing.
func OpenStore(path string) *Store { return &Store{path: path} }

// DefaultStorePath is config.StateDir()/trust.json, or "" when there is no
// state directory (no XDG_STATE_HOME and no home directory).
func DefaultStorePath() string {
	dir := config.StateDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "trust.json")
}

// Path is the file this store reads and writes.
func (s *Store) Path() string {
	if s == nil {
		return ""
	}
	return s.path
}

// LaunchState says whether this server's current fingerprint is approved: no
// entry is NeedsApproval, an entry for another fingerprint is ApprovalStale
// (approved, then the command changed: the G1 swap attack), an equal one is
// Trusted. On any error the state is NeedsApproval (fail closed).
func (s *Store) LaunchState(root, name, fingerprint string) (LaunchState, error) {
	f, err := s.read()
	if err != nil {
		return NeedsApproval, err
	}
	a, ok := f.server(root, name)
	switch {
	case !ok:
		return NeedsApproval, nil
	case fingerprint == "" || a.Fingerprint != fingerprint:
		return ApprovalStale, nil
	}
	return Trusted, nil
}

// ApproveLaunch records consent for exactly this fingerprint.
func (s *Store) ApproveLaunch(root, name, fingerprint string) error {
	if root == "" || name == "" || len(fingerprint) != 64 {
		return fmt.Errorf("trust: approve launch: need a workspace root, a server name and a 64-digit fingerprint (got root %q, name %q, fingerprint %q)", root, name, fingerprint)
	}
	return s.update(func(f *storeFile) {
		f.workspace(root).Servers[name] = approval{Fingerprint: fingerprint, ApprovedAt: time.Now().UTC()}
	})
}

// Approvals lists the approved fingerprints of a workspace by server name.
func (s *Store) Approvals(root string) (map[string]string, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	if w := f.Workspaces[filepath.Clean(root)]; w != nil {
		for name, a := range w.Servers {
			out[name] = a.Fingerprint
		}
	}
	return out, nil
}

// Revoke forgets one server's launch approval; it never kills anything.
// Revoking what was never approved is not an error.
func (s *Store) Revoke(root, name string) error {
	return s.update(func(f *storeFile) {
		key := filepath.Clean(root)
		if w := f.Workspaces[key]; w != nil {
			delete(w.Servers, name)
			if w.empty() {
				delete(f.Workspaces, key)
			}
		}
	})
}

// RevokeAll forgets every launch approval of a workspace; returns the names,
// sorted. It never kills anything, and keeps the workspace's saved rules
// (RevokeRule forgets those).
func (s *Store) RevokeAll(root string) ([]string, error) {
	var names []string
	err := s.update(func(f *storeFile) {
		key := filepath.Clean(root)
		if w := f.Workspaces[key]; w != nil {
			for name := range w.Servers {
				names = append(names, name)
			}
			w.Servers = map[string]approval{}
			if w.empty() {
				delete(f.Workspaces, key)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// AllowAlways stores "always allow" for a tool bound to its definition hash.
func (s *Store) AllowAlways(tool, definitionHash string) error {
	if tool == "" || definitionHash == "" {
		return fmt.Errorf("trust: always allow: need a tool name and its definition hash (got %q, %q)", tool, definitionHash)
	}
	return s.update(func(f *storeFile) {
		f.AlwaysAllow[tool] = alwaysAllow{DefinitionHash: definitionHash, AllowedAt: time.Now().UTC()}
	})
}

// ForgetAlways removes a tool's "always allow".
func (s *Store) ForgetAlways(tool string) error {
	return s.update(func(f *storeFile) { delete(f.AlwaysAllow, tool) })
}

// IsAlwaysAllowed reports whether the tool was always-allowed with exactly
// this definition. Any error reads as false (fail closed).
func (s *Store) IsAlwaysAllowed(tool, definitionHash string) bool {
	h, ok, err := s.alwaysAllowedHash(tool)
	return err == nil && ok && definitionHash != "" && h == definitionHash
}

// alwaysAllowedHash is the definition hash a tool was always-allowed with.
func (s *Store) alwaysAllowedHash(tool string) (string, bool, error) {
	f, err := s.read()
	if err != nil {
		return "", false, err
	}
	a, ok := f.AlwaysAllow[tool]
	return a.DefinitionHash, ok, nil
}

func (f *storeFile) server(root, name string) (approval, bool) {
	w := f.Workspaces[filepath.Clean(root)]
	if w == nil {
		return approval{}, false
	}
	a, ok := w.Servers[name]
	return a, ok
}

func emptyStore() *storeFile {
	return &storeFile{Version: storeVersion, Workspaces: map[string]*workspaceFile{}, AlwaysAllow: map[string]alwaysAllow{}}
}

// corrupt wraps ErrCorrupt with what is wrong and what to do about it.
func (s *Store) corrupt(what string) error {
	return fmt.Errorf("%w: %s: %s; nothing in it is trusted and agentls will not overwrite it: move it aside (mv %s %s.bad) and approve your servers again with `agentls mcp trust NAME`",
		ErrCorrupt, s.path, what, s.path, s.path)
}

// read is the store's content, to be read, never changed: the cached
// parse when a stat says the file is the one it came from, unchanged; a
// fresh parse otherwise. A missing file is an empty store.
func (s *Store) read() (*storeFile, error) {
	if s != nil && s.frozen != nil {
		return s.frozen.file, s.frozen.err
	}
	if s == nil || s.path == "" {
		return s.parse()
	}
	st, err := os.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return emptyStore(), nil
	}
	if err != nil {
		return s.parse() // the error, as parse says it
	}
	// The owner and mode checks run on every read, cached or not (parse
	// says what is wrong).
	_, foreign := foreignOwner(st)
	s.mu.Lock()
	if s.cached != nil && !foreign && st.Mode().Perm()&0o022 == 0 && sameStamp(s.stamp, st) {
		f := s.cached
		s.mu.Unlock()
		return f, nil
	}
	s.mu.Unlock()
	return s.parseAndCache()
}

// parseAndCache parses the file and keeps the result for read, stamped
// with the stat of the file it was read from (taken on the open file, so
// a rename in between cannot pair one file's stat with another's text).
func (s *Store) parseAndCache() (*storeFile, error) {
	f, st, err := s.parseFile()
	if err == nil && st != nil {
		s.mu.Lock()
		s.cached, s.stamp = f, st
		s.mu.Unlock()
	}
	if err == nil {
		// read's callers only read; update's change gets a parse of its own.
		return f, nil
	}
	return nil, err
}

// parse loads the file afresh, without the cache.
func (s *Store) parse() (*storeFile, error) {
	f, _, err := s.parseFile()
	return f, err
}

// parses counts the files parseFile opened (the test that reads are cached
// reads it).
var parses atomic.Int64

// parseFile loads the file; a missing file is an empty store (and no
// stat). st is the open file's stat.
func (s *Store) parseFile() (_ *storeFile, st fs.FileInfo, _ error) {
	parses.Add(1)
	if s == nil || s.path == "" {
		return nil, nil, errors.New("trust: no trust store path: set XDG_STATE_HOME or HOME so agentls has a state directory")
	}
	fh, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return emptyStore(), nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("trust: read %s: %w", s.path, err)
	}
	defer fh.Close()
	st, err = fh.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("trust: read %s: %w", s.path, err)
	}
	// A file another user swapped in (their own, any mode) would approve their servers for us.
	if uid, foreign := foreignOwner(st); foreign {
		return nil, nil, s.corrupt(fmt.Sprintf("it is owned by another user (uid %d), not by you", uid))
	}
	// Another user able to write the file could approve servers for us.
	if st.Mode().Perm()&0o022 != 0 {
		return nil, nil, s.corrupt(fmt.Sprintf("it is writable by other users (mode %v, expected 0600)", st.Mode().Perm()))
	}
	dec := json.NewDecoder(fh)
	dec.DisallowUnknownFields()
	f := emptyStore()
	f.Version = 0
	if err := dec.Decode(f); err != nil {
		return nil, nil, s.corrupt("not valid trust JSON (" + err.Error() + ")")
	}
	if dec.More() {
		return nil, nil, s.corrupt("trailing data after the JSON object")
	}
	if f.Version != storeVersion {
		return nil, nil, s.corrupt(fmt.Sprintf("version %d, expected %d", f.Version, storeVersion))
	}
	if f.Workspaces == nil {
		f.Workspaces = map[string]*workspaceFile{}
	}
	if f.AlwaysAllow == nil {
		f.AlwaysAllow = map[string]alwaysAllow{}
	}
	for root, w := range f.Workspaces {
		if w == nil {
			f.Workspaces[root] = &workspaceFile{Servers: map[string]approval{}}
		} else if w.Servers == nil {
			w.Servers = map[string]approval{}
		}
	}
	return f, st, nil
}

// update is one read-modify-write under the exclusive lock, written
// atomically: a temp file in the same directory, fsync, rename, fsync dir.
func (s *Store) update(change func(*storeFile)) error {
	if s != nil && s.frozen != nil {
		return errors.New("trust: a policy snapshot is read-only: write through the store itself")
	}
	if s == nil || s.path == "" {
		_, err := s.read()
		return err
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("trust: create %s: %w", dir, err)
	}
	unlock, err := lockFile(s.path + ".lock")
	if err != nil {
		return fmt.Errorf("trust: lock %s: %w", s.path, err)
	}
	defer unlock()
	f, err := s.parse() // a copy of its own: change must not touch the cache
	if err != nil {
		return err
	}
	change(f)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("trust: encode %s: %w", s.path, err)
	}
	return writeAtomic(s.path, append(data, '\n'))
}

func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("trust: write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("trust: write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("trust: write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("trust: write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("trust: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("trust: write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: the rename is already visible to readers
		d.Close()
	}
	return nil
}
