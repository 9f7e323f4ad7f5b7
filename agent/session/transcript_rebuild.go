package session

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/tools"
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

// EndsTorn says whether the transcript at path exists and does not end
// with a whole line (every write of a transcript ends one).
func EndsTorn(path string) bool {
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

// rebuild replaces the transcript with msgs rendered whole; on success
// later writes go on appending.
func (t *Transcript) Rebuild(msgs []model.Message, why string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	text := renderTranscript(msgs, why)
	t.held.close() // the rename replaces it (and Windows refuses while it is open)
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(t.Path), ".transcript-*.tmp")
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), t.Path)
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
				fmt.Fprintf(&b, "\n### Tool call: %s\n\n%s\n", x.Name, tools.Fence("json", string(trust.RedactJSON(x.Input))))
			case x.Type == "tool_result":
				status := wire.StatusCompleted
				if x.IsError {
					status = wire.StatusFailed
				}
				fmt.Fprintf(&b, "\n### Result (%s)\n\n%s\n", status, tools.Fence("", trust.Redact(x.Content)))
			}
		}
		if m.Role == "assistant" && m.Interrupted != "" {
			b.WriteString("\n> agentls: " + InterruptedStatus(m) + "\n")
		}
	}
	return b.String()
}
