package agent

// The retention policy ([sessions] keep and max_age), applied by the core
// under its session locks (memory.go); the store lists, pins and deletes
// the session files (session/retention.go).

import (
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
	return c.sessions.Pin(id, pinned)
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

// deleteSession deletes one session and its transcript, unless it is in
// use; it reports whether it did.
func (c *Core) deleteSession(s session.StoredSession) bool {
	unlock, ok := c.trySessionLock(s.ID)
	if !ok {
		return false // a task of this Core holds it
	}
	defer unlock()
	deleted, err := c.sessions.Delete(s)
	if err != nil {
		c.logf("sessions: deleting %s: %v", s.ID, err)
	}
	if deleted {
		os.Remove(session.TranscriptPath(c.stateDir, s.ID))
	}
	return deleted
}
