package agent

import (
	"fmt"
	"slices"

	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/wire"
)

// turnPromptMax is how much of a turn's prompt Turns shows: a line of a
// picker, not the prompt.
const turnPromptMax = 120

// Turns lists the turns of a session a rewind can go back before (the
// turns the next prompt continues from), oldest first: each one's number
// (1 is the first prompt), the first line of its prompt and the files it
// changed that a checkpoint kept, for a front's picker of agent/rewind.
func (c *Core) Turns(sessionID string) (wire.TurnsResult, error) {
	res := wire.TurnsResult{SessionID: sessionID, Turns: []wire.Turn{}}
	if _, err := c.SessionExists(sessionID); err != nil {
		return res, err
	}
	history, _, err := c.sessions.Load(sessionID)
	if err != nil {
		return res, err
	}
	for _, m := range history {
		if !session.StartsTurn(m) {
			continue
		}
		t := wire.Turn{Turn: len(res.Turns) + 1}
		for _, b := range m.Content {
			if b.Type == "text" {
				t.Prompt = tools.FirstLine(b.Text, turnPromptMax)
				break
			}
		}
		res.Turns = append(res.Turns, t)
	}
	recs, err := readCheckpoints(c.sessions.CheckpointDir(sessionID))
	if err != nil {
		return res, fmt.Errorf("read the checkpoints of session %s: %w", sessionID, err)
	}
	for _, r := range recs {
		if r.Turn < 1 || r.Turn > len(res.Turns) || r.Path == "" {
			continue
		}
		t := &res.Turns[r.Turn-1]
		if !slices.Contains(t.Files, r.Path) {
			t.Files = append(t.Files, r.Path)
		}
	}
	for i := range res.Turns {
		slices.Sort(res.Turns[i].Files)
	}
	return res, nil
}
