package agent

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// A transcript is torn when a write to it failed (a full disk: it ends
// mid-text and the turns after are missing) or when it does not end with a
// whole line (torn so by an earlier process). The session file holds every
// turn, so a torn transcript is rebuilt from it: written whole to a
// temporary file and renamed over the torn one, at the next turn's start
// and at the end of the turn whose write failed, whichever first finds
// room on the disk.

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

// endsTorn says whether the transcript at path exists and does not end
// with a whole line (every write of a transcript ends one).
func endsTorn(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, fi.Size()-1); err != nil && err != io.EOF {
		return false
	}
	return last[0] != '\n'
}

// repairTranscript rebuilds the session's transcript when it is torn and
// says so; it reports whether the transcript is whole now. The caller
// holds the session.
func (r *run) repairTranscript() bool {
	c, id := r.core, r.task.SessionID
	why := "a write to it failed"
	switch {
	case c.isTorn(id) || r.tr.failed():
	case endsTorn(r.tr.path):
		why = "it ended mid-line"
	default:
		return true
	}
	msgs, err := readMessages(c.sessions.path(id))
	if err != nil {
		return false
	}
	if err := r.tr.rebuild(msgs, why); err != nil {
		return false
	}
	c.markTorn(id, false)
	msg := fmt.Sprintf("the transcript %s was torn (%s) and is rebuilt from the session file", r.tr.path, why)
	c.logf("%s", msg)
	r.emitStatus(msg)
	return true
}

// rebuild replaces the transcript with msgs rendered whole; on success
// later writes go on appending.
func (t *transcript) rebuild(msgs []model.Message, why string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	text := renderTranscript(msgs, why)
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(t.path), ".transcript-*.tmp")
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), t.path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	t.err = nil
	return nil
}

// renderTranscript is a session's history as its transcript, redacted,
// in the shape the live transcript has (what only the live one knows, task
// ids, usage, server logs, is not in the session and is left out).
func renderTranscript(msgs []model.Message, why string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "> agentls: rebuilt from the session file (%s); task ids, token usage and server logs of the turns before are not kept there\n", why)
	for _, m := range msgs {
		for _, x := range m.Content {
			switch {
			case x.Type == "text" && m.Role == "user":
				b.WriteString("\n## User\n\n" + trust.Redact(x.Text) + "\n")
			case x.Type == "text" && strings.TrimSpace(x.Text) != "":
				b.WriteString("\n## Assistant\n\n" + trust.Redact(x.Text) + "\n")
			case x.Type == "tool_use":
				fmt.Fprintf(&b, "\n### Tool call: %s\n\n%s\n", x.Name, fence("json", string(trust.RedactJSON(x.Input))))
			case x.Type == "tool_result":
				status := wire.StatusCompleted
				if x.IsError {
					status = wire.StatusFailed
				}
				fmt.Fprintf(&b, "\n### Result (%s)\n\n%s\n", status, fence("", trust.Redact(x.Content)))
			}
		}
		if m.Role == "assistant" && m.Interrupted != "" {
			b.WriteString("\n> agentls: " + interruptedStatus(m) + "\n")
		}
	}
	return b.String()
}
