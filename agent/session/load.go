package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/agentls/agentls/agent/model"
)

// Load reads a session's history. A missing file is an empty history.
// What cannot be continued — a line that is not a message (torn by a crash,
// garbage), or messages that break the history's pairing (a tool_use whose
// result was lost) — is set aside: its original lines are appended to the
// side file next to the session, the session is rewritten without them, and
// note says so for the user. Every intact turn is kept, before and after the
// bad lines. If the side file cannot be written the session file is left as
// it is (nothing is lost) and the repaired history is used for this turn.
func (s Store) Load(id string) (msgs []model.Message, note string, err error) {
	raw, err := os.ReadFile(s.Path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read session %s: %w", id, err)
	}
	var lines [][]byte // the raw line of each message of msgs
	var aside [][]byte
	var badLines []int
	for i, line := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if turn := forkAt(line); turn > 0 {
			// A rewind forked the conversation: the turns from this one on
			// stay in the file, and the history continues before them.
			k := cutBeforeTurn(msgs, turn)
			msgs, lines = msgs[:k], lines[:k]
			continue
		}
		var m model.Message
		if err := json.Unmarshal(line, &m); err != nil {
			aside = append(aside, line)
			badLines = append(badLines, i+1)
			continue
		}
		msgs = append(msgs, m)
		lines = append(lines, line)
	}
	kept := keptMessages(msgs)
	if len(aside) == 0 && len(kept) == len(msgs) {
		return msgs, "", nil
	}
	out := make([]model.Message, 0, len(kept))
	for i, m := range msgs {
		if len(out) < len(kept) && kept[len(out)] == i {
			out = append(out, m)
			continue
		}
		aside = append(aside, lines[i])
	}
	side := s.AsidePath(id)
	what := fmt.Sprintf("%d line(s)", len(aside))
	if len(badLines) > 0 {
		what += fmt.Sprintf(" (unreadable: line %s)", joinInts(badLines))
	}
	if err := appendLines(side, aside); err != nil {
		return out, fmt.Sprintf("session %s has %s that cannot be continued; they could not be set aside (%v), so the session file is left as it is and this turn continues without them", id, what, err), nil
	}
	if err := s.rewrite(id, out); err != nil {
		return out, fmt.Sprintf("session %s: set aside %s in %s, but rewriting the session failed (%v); this turn continues without them", id, what, side, err), nil
	}
	return out, fmt.Sprintf("session %s: set aside %s that could not be continued (torn, garbage, or a tool call without its result) in %s; every intact turn is kept", id, what, side), nil
}

// asidePath is where load keeps the lines it takes out of a session.
func (s Store) AsidePath(id string) string { return s.Path(id) + ".set-aside" }

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}
