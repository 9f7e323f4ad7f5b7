package session

import (
	"errors"
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
// the turn journal of another live agentls.

func (s Store) PinPath(id string) string { return s.Path(id) + ".pin" }

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
