package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
)

// The retention policy ([sessions] keep and max_age, docs/config.md) bounds
// a workspace's sessions folder: every task without a sessionId starts a
// session, so a day of editor actions, or a script, leaves thousands. After
// a task that started a session, the sessions past the policy are deleted,
// oldest first by last use, with their side files and transcripts. Never a
// pinned one (a <id>.jsonl.pin file beside it, agent/pinSession; pinned
// ones do not count against keep), and never one in use: held by a task of
// this process (taken for the deletion, so none can start meanwhile), or with
// the turn journal of another live agentls. The policy is the core's
// (agent/retention.go); which files a session has, and pinning, are here.

func (s Store) PinPath(id string) string { return s.Path(id) + ".pin" }

// Pin pins a stored session (retention never deletes it) or unpins it.
func (s Store) Pin(id string, pinned bool) error {
	if !pinned {
		if err := os.Remove(s.PinPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("unpin session %s: %w", id, err)
		}
		return nil
	}
	if err := os.WriteFile(s.PinPath(id), []byte("pinned: the [sessions] retention policy never deletes this session\n"), 0o600); err != nil {
		return fmt.Errorf("pin session %s: %w", id, err)
	}
	return nil
}

// Delete deletes a stored session and its side files (its transcript,
// which lies under the state dir, is the caller's), unless another
// agentls is in a turn of it or it was pinned since it was listed; the
// caller holds it against this process's tasks. It reports whether it
// deleted it; an error says why the session file itself stayed.
func (s Store) Delete(st StoredSession) (bool, error) {
	if st.Journal && s.LiveElsewhere(st.ID) {
		return false, nil
	}
	if _, err := os.Stat(s.PinPath(st.ID)); err == nil {
		return false, nil
	}
	if err := os.Remove(s.Path(st.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	os.RemoveAll(s.CheckpointDir(st.ID))
	for _, p := range []string{s.AsidePath(st.ID), s.JournalPath(st.ID), s.LockPath(st.ID), s.ViewPath(st.ID), s.ControlPath(st.ID)} {
		os.Remove(p)
	}
	s.Forget(st.ID)
	return true, nil
}

// StoredSession is a session file as retention sees it.
type StoredSession struct {
	ID      string
	UsedAt  time.Time
	Pinned  bool
	Journal bool // a turn journal is beside it
}

// Stored lists the session files of the store with what retention
// needs to know of each; with keep > 0 and nothing past it by count (and
// no age limit, noAge), nil without a stat of any.
func (s Store) Stored(keep int, noAge bool) ([]StoredSession, error) {
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
	var out []StoredSession
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || CheckID(id) != nil {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, StoredSession{ID: id, UsedAt: info.ModTime(),
			Pinned: names[e.Name()+".pin"], Journal: names[e.Name()+".turn"]})
	}
	return out, nil
}
