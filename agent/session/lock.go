package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"
)

// Two agentls processes on one workspace (Helix's language server and
// `agentls chat` in a terminal beside it, or two `agentls run --session`)
// may continue the same session. A turn loads the history, appends to it
// and journals what streams, so two turns at once in different processes
// would interleave one history: each process takes the session's lock
// file for the turn (flock on unix), the way the in-process lock keeps
// two tasks of one process apart.

// LockPath is the lock file of a session, beside it.
func (s Store) LockPath(id string) string { return filepath.Join(s.dir, id+".lock") }

// errLockBusy is tryLockFile's answer when another process holds the lock.
var errLockBusy = errors.New("held by another agentls")

// LockAcross takes the session's lock file, waiting while another process
// holds it (waiting is called once, when it does) until ctx ends.
func (s Store) LockAcross(ctx context.Context, id string, waiting func()) (unlock func(), err error) {
	said := false
	for {
		unlock, err := s.TryLockAcross(id)
		if !errors.Is(err, errLockBusy) {
			return unlock, err
		}
		if !said && waiting != nil {
			waiting()
			said = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TryLockAcross takes the session's lock file if no other process holds
// it (errLockBusy if one does). A folder that cannot hold the lock file
// (no state folder yet, read-only) is no lock at all: the turn goes on,
// as it did before there was one.
func (s Store) TryLockAcross(id string) (unlock func(), err error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return func() {}, nil
	}
	f, err := os.OpenFile(s.LockPath(id), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return func() {}, nil
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}
