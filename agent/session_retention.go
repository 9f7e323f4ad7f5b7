package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/agentls/agentls/config"
)

// The retention policy ([sessions] keep and max_age, docs/config.md) bounds
// a workspace's sessions folder: every task without a sessionId starts a
// session, so a day of editor actions, or a script, leaves thousands. After
// a task that started a session, the sessions past the policy are deleted,
// oldest first by last use, with their side files and transcripts. Never a
// pinned one (a <id>.jsonl.pin file beside it, agent/pinSession; pinned
// ones do not count against keep), and never one in use: held by a task of
// this Core (taken for the deletion, so none can start meanwhile), or with
// the turn journal of another live agentls.

func (s sessionStore) pinPath(id string) string { return s.path(id) + ".pin" }

// PinSession pins a stored session (the retention policy never deletes it)
// or unpins it.
func (c *Core) PinSession(id string, pinned bool) error {
	if _, err := c.SessionExists(id); err != nil {
		return err
	}
	if !pinned {
		if err := os.Remove(c.sessions.pinPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("unpin session %s: %w", id, err)
		}
		return nil
	}
	if err := os.WriteFile(c.sessions.pinPath(id), []byte("pinned: the [sessions] retention policy never deletes this session\n"), 0o600); err != nil {
		return fmt.Errorf("pin session %s: %w", id, err)
	}
	return nil
}

type storedSession struct {
	id      string
	usedAt  time.Time
	pinned  bool
	journal bool // a turn journal is beside it
}

// storedSessions lists the session files of the store with what retention
// needs to know of each; with keep > 0 and nothing past it by count (and
// no age limit, noAge), nil without a stat of any.
func (s sessionStore) storedSessions(keep int, noAge bool) ([]storedSession, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	if noAge {
		unpinned := 0
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".jsonl") && !names[e.Name()+".pin"] {
				unpinned++
			}
		}
		if unpinned <= keep {
			return nil, nil
		}
	}
	var out []storedSession
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || checkSessionID(id) != nil {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, storedSession{id: id, usedAt: info.ModTime(),
			pinned: names[e.Name()+".pin"], journal: names[e.Name()+".turn"]})
	}
	return out, nil
}

// retain applies the retention policy to this workspace's sessions and
// returns the ids it deleted.
func (c *Core) retain(now time.Time) []string {
	keep, maxAge := c.cfg.Sessions.Keep, c.cfg.Sessions.MaxAge
	if keep <= 0 {
		keep = config.DefaultSessionsKeep
	}
	if !c.retaining.CompareAndSwap(false, true) {
		return nil // another task's end is applying it now
	}
	defer c.retaining.Store(false)
	all, err := c.sessions.storedSessions(keep, maxAge <= 0)
	if err != nil {
		c.logf("sessions: applying [sessions] keep: %v", err)
		return nil
	}
	sort.Slice(all, func(i, j int) bool { return all[i].usedAt.After(all[j].usedAt) })
	var deleted []string
	kept := 0
	for _, s := range all {
		if s.pinned {
			continue
		}
		kept++
		if kept <= keep && (maxAge <= 0 || now.Sub(s.usedAt) <= maxAge) {
			continue
		}
		if c.deleteSession(s) {
			deleted = append(deleted, s.id)
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
func (c *Core) deleteSession(s storedSession) bool {
	unlock, ok := c.trySessionLock(s.id)
	if !ok {
		return false // a task of this Core holds it
	}
	defer unlock()
	if s.journal {
		if st, ok := readJournal(c.sessions.journalPath(s.id)); ok && st.pid != os.Getpid() && processAlive(st.pid) {
			return false // another agentls is in a turn of it
		}
	}
	if _, err := os.Stat(c.sessions.pinPath(s.id)); err == nil {
		return false // pinned since it was listed
	}
	if err := os.Remove(c.sessions.path(s.id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.logf("sessions: deleting %s: %v", s.id, err)
		return false
	}
	for _, p := range []string{c.sessions.asidePath(s.id), c.sessions.journalPath(s.id), c.sessions.lockPath(s.id), c.sessions.viewPath(s.id), transcriptPath(c.stateDir, s.id)} {
		os.Remove(p)
	}
	c.sessions.forgetKnown(s.id)
	return true
}
