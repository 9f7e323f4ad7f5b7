package agent

// The core's side of stored sessions (agent/session keeps them): pinning,
// and the retention policy applied under the session locks of memory.go.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/agentls/agentls/agent/session"
)

// PinSession pins a stored session (the retention policy never deletes it)
// or unpins it.
func (c *Core) PinSession(id string, pinned bool) error {
	if _, err := c.SessionExists(id); err != nil {
		return err
	}
	if !pinned {
		if err := os.Remove(c.sessions.PinPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("unpin session %s: %w", id, err)
		}
		return nil
	}
	if err := os.WriteFile(c.sessions.PinPath(id), []byte("pinned: the [sessions] retention policy never deletes this session\n"), 0o600); err != nil {
		return fmt.Errorf("pin session %s: %w", id, err)
	}
	return nil
}

// retain applies the retention policy to this workspace's sessions and
// returns the ids it deleted.
func (c *Core) retain(now time.Time) []string {
	keep, maxAge := c.cfg.Sessions.Keep, c.cfg.Sessions.MaxAge
	if !c.retaining.CompareAndSwap(false, true) {
		return nil // another task's end is applying it now
	}
	defer c.retaining.Store(false)
	all, err := c.sessions.Stored(keep, maxAge <= 0)
	if err != nil {
		c.logf("sessions: applying [sessions] keep: %v", err)
		return nil
	}
	sort.Slice(all, func(i, j int) bool { return all[i].UsedAt.After(all[j].UsedAt) })
	var deleted []string
	kept := 0
	for _, s := range all {
		if s.Pinned {
			continue
		}
		kept++
		if kept <= keep && (maxAge <= 0 || now.Sub(s.UsedAt) <= maxAge) {
			continue
		}
		if c.deleteSession(s) {
			deleted = append(deleted, s.ID)
			kept--
		}
	}
	if len(deleted) > 0 {
		c.logf("sessions: deleted %d session(s) of this workspace past the retention policy ([sessions] keep = %d, max_age = %s), oldest first; pinned ones and ones in use are kept", len(deleted), keep, ageText(maxAge))
	}
	return deleted
}

func ageText(d time.Duration) string {
	if d <= 0 {
		return "none"
	}
	return d.String()
}

// deleteSession deletes one session and what belongs to it, unless it is
// in use; it reports whether it did.
func (c *Core) deleteSession(s session.StoredSession) bool {
	unlock, ok := c.trySessionLock(s.ID)
	if !ok {
		return false // a task of this Core holds it
	}
	defer unlock()
	if s.Journal && c.sessions.LiveElsewhere(s.ID) {
		return false // another agentls is in a turn of it
	}
	if _, err := os.Stat(c.sessions.PinPath(s.ID)); err == nil {
		return false // pinned since it was listed
	}
	if err := os.Remove(c.sessions.Path(s.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.logf("sessions: deleting %s: %v", s.ID, err)
		return false
	}
	os.RemoveAll(c.sessions.CheckpointDir(s.ID))
	for _, p := range []string{c.sessions.AsidePath(s.ID), c.sessions.JournalPath(s.ID), c.sessions.LockPath(s.ID), c.sessions.ViewPath(s.ID), c.sessions.ControlPath(s.ID), session.TranscriptPath(c.stateDir, s.ID)} {
		os.Remove(p)
	}
	c.sessions.Forget(s.ID)
	return true
}
