package session

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/agent/model"
)

// CheckpointDir is where the checkpoints of a session's turns are kept
// (agent/checkpoint.go): what each file was before a turn changed it.
func (s Store) CheckpointDir(id string) string { return s.Path(id) + ".checkpoints" }

// AppendLine appends one line to path (created 0600) and syncs it.
func AppendLine(path string, line []byte) error { return appendLines(path, [][]byte{line}) }

// CountPrompts is the number of turns of a history: its user prompts.
func CountPrompts(history []model.Message) int {
	n := 0
	for _, m := range history {
		if StartsTurn(m) {
			n++
		}
	}
	return n
}

// forkLine is the line a rewind appends to a session file: the history
// from the turn-th prompt on is kept in the file but no longer continued.
type forkLine struct {
	Rewind int `json:"rewind"`
}

// Fork marks a session forked before its turn-th prompt: Load continues
// the history before it, and the file keeps the turns from it on.
func (s Store) Fork(id string, turn int) error {
	line, _ := json.Marshal(forkLine{Rewind: turn})
	if err := appendLines(s.Path(id), [][]byte{line}); err != nil {
		return fmt.Errorf("fork session %s at turn %d: %w", id, turn, err)
	}
	s.Forget(id)
	return nil
}

// forkAt is the turn a session line forks the history before, or 0 when
// the line is a message.
func forkAt(line []byte) int {
	if !bytes.HasPrefix(bytes.TrimSpace(line), []byte(`{"rewind"`)) {
		return 0
	}
	var f forkLine
	if json.Unmarshal(line, &f) != nil {
		return 0
	}
	return f.Rewind
}

// cutBeforeTurn is how many of msgs come before the turn-th prompt.
func cutBeforeTurn(msgs []model.Message, turn int) int {
	n := 0
	for i, m := range msgs {
		if StartsTurn(m) {
			n++
			if n == turn {
				return i
			}
		}
	}
	return len(msgs)
}
