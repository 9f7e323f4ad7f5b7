package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

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

// RewindAsking is Rewind for a front that asks through an Approver (the
// terminal, ACP's session/request_permission): when files changed outside
// agentls since, it shows them on a card, and rewinds with force only if
// the user chose to overwrite them; otherwise the result is the first
// rewind's, which restored nothing and did not fork (rewound false). An
// error from the Approver (nobody to ask, a cancel) is returned with that
// result.
func (c *Core) RewindAsking(ctx context.Context, sessionID string, turn int, ws tools.Workspace, ap Approver) (res wire.RewindResult, rewound bool, err error) {
	res, err = c.Rewind(ctx, sessionID, turn, false, ws)
	if err != nil || len(res.Changed) == 0 {
		return res, err == nil, err
	}
	opt, err := ap.RequestApproval(ctx, RewindApproval(res))
	if err != nil || opt != string(wire.OptionAllowOnce) {
		return res, false, err
	}
	res, err = c.Rewind(ctx, sessionID, turn, true, ws)
	return res, err == nil, err
}

// rewindCards numbers the rewind cards, for their ids.
var rewindCards atomic.Int64

// RewindApproval is the card asking whether a rewind may overwrite the
// files in res.Changed: allow_once overwrites them, reject_once keeps
// them and restores nothing.
func RewindApproval(res wire.RewindResult) wire.Approval {
	var b strings.Builder
	fmt.Fprintf(&b, "Going back to before turn %d would overwrite %d file(s) changed outside agentls since agentls last wrote them:\n", res.Turn, len(res.Changed))
	for _, p := range res.Changed {
		b.WriteString("  " + p + "\n")
	}
	b.WriteString("\nKeep them and nothing is restored.")
	id := fmt.Sprintf("rewind-%d", rewindCards.Add(1))
	return wire.Approval{ApprovalID: id, Kind: wire.ApprovalWrite, Tool: "rewind", Title: "Overwrite files changed outside agentls?", Detail: b.String(),
		Options: []wire.ApprovalOption{
			{OptionID: string(wire.OptionAllowOnce), Name: "Overwrite them", Kind: wire.OptionAllowOnce},
			{OptionID: string(wire.OptionRejectOnce), Name: "Keep them", Kind: wire.OptionRejectOnce},
		}}
}
