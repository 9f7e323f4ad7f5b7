package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/agentls/agentls/wire"
)

// SessionExists checks that id names a stored session of this workspace;
// the error says what is wrong and how to find a good id.
func (c *Core) SessionExists(id string) (bool, error) {
	if err := checkSessionID(id); err != nil {
		return false, err
	}
	if _, err := os.Stat(c.sessions.path(id)); errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("no session %q in this workspace (agent/sessions, or `agentls run --continue` for the latest)", id)
	} else if err != nil {
		return false, fmt.Errorf("session %s: %w", id, err)
	}
	return true, nil
}

// CompactResult is what Core.Compact did: the estimated tokens of what
// would be sent before and after.
type CompactResult = wire.CompactResult

// Compact compacts a session on demand: old tool results become stubs and
// the older turns a summary the model writes, the last turn stays verbatim.
// The session file keeps everything; what is sent next is the compacted
// view. It waits for a task running in the session to end first.
func (c *Core) Compact(ctx context.Context, sessionID string) (CompactResult, error) {
	res := CompactResult{SessionID: sessionID}
	if _, err := c.SessionExists(sessionID); err != nil {
		return res, err
	}
	unlock, err := c.sessionLock(ctx, sessionID)
	if err != nil {
		return res, err
	}
	defer unlock()
	provider, err := c.modelProvider()
	if err != nil {
		return res, err
	}
	recovered := c.sessions.recoverTurn(sessionID)
	history, note, err := c.sessions.load(sessionID)
	if err != nil {
		return res, err
	}
	for _, n := range []string{recovered, note} {
		if n != "" {
			c.logf("%s", n)
			openTranscript(c.stateDir, sessionID).note(n)
		}
	}
	view := c.sessions.loadView(sessionID, history)
	res.TokensBefore = messageTokens(applyView(history, view))
	cmp := compactor{provider: provider, modelName: c.cfg.Model.Name, maxTokens: c.cfg.Model.MaxTokens, window: c.contextWindow()}
	next, err := cmp.compact(ctx, history, view, 0, true)
	if err != nil {
		return res, err
	}
	if err := c.sessions.saveView(sessionID, next); err != nil {
		return res, err
	}
	res.TokensAfter = messageTokens(applyView(history, next))
	tr := openTranscript(c.stateDir, sessionID)
	tr.note(fmt.Sprintf("compacted on request: about %d → %d tokens (%s)", res.TokensBefore, res.TokensAfter, next.describe(len(history))))
	return res, nil
}
