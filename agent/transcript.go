package agent

// The core's side of torn transcripts (agent/session rebuilds them):
// which sessions this process saw a write fail for, and the repair at a
// turn's start or end.

import (
	"fmt"

	"github.com/agentls/agentls/agent/session"
)

// markTorn and isTorn remember, for this process, the sessions whose
// transcript a write failed for, until a rebuild succeeds.
func (c *Core) markTorn(id string, torn bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if torn {
		c.torn[id] = true
	} else {
		delete(c.torn, id)
	}
}

func (c *Core) isTorn(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.torn[id]
}

// transcriptFailed is what the user is told when a transcript write fails.
func transcriptFailed(path string, err error) string {
	return fmt.Sprintf("the transcript %s could not be written (%v): it stops here until there is room again, then it is rebuilt from the session file, which keeps every turn", path, err)
}

// repairTranscript rebuilds the session's transcript when it is torn and
// says so; it reports whether the transcript is whole now. The caller
// holds the session.
func (r *run) repairTranscript() bool {
	c, id := r.core, r.task.SessionID
	why := "a write to it failed"
	switch {
	case c.isTorn(id) || r.tr.Failed():
	case session.EndsTorn(r.tr.Path):
		why = "it ended mid-line"
	default:
		return true
	}
	msgs, err := session.ReadMessages(c.sessions.Path(id))
	if err != nil {
		return false
	}
	if err := r.tr.Rebuild(msgs, why); err != nil {
		return false
	}
	c.markTorn(id, false)
	msg := fmt.Sprintf("the transcript %s was torn (%s) and is rebuilt from the session file", r.tr.Path, why)
	c.logf("%s", msg)
	r.emitStatus(msg)
	return true
}
