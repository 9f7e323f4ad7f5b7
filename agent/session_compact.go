package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/wire"
)

// SessionExists checks that id names a stored session of this workspace;
// the error says what is wrong and how to find a good id.
func (c *Core) SessionExists(id string) (bool, error) {
	if err := session.CheckID(id); err != nil {
		return false, err
	}
	if _, err := os.Stat(c.sessions.Path(id)); errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("no session %q in this workspace (agent/sessions, or `agentls run --continue` for the latest)", id)
	} else if err != nil {
		return false, fmt.Errorf("session %s: %w", id, err)
	}
	return true, nil
}

// Compact compacts a session on demand: old tool results become stubs and
// the older turns a summary the model writes, the last turn stays verbatim.
// The session file keeps everything; what is sent next is the compacted
// view. It waits for a task running in the session to end first.
func (c *Core) Compact(ctx context.Context, sessionID string) (wire.CompactResult, error) {
	res := wire.CompactResult{SessionID: sessionID}
	if _, err := c.SessionExists(sessionID); err != nil {
		return res, err
	}
	unlock, err := c.sessionLock(ctx, sessionID)
	if err != nil {
		return res, err
	}
	defer unlock()
	pm := c.sessionModel(sessionID)
	provider, err := pm.Provider(c.stateDir)
	if err != nil {
		return res, err
	}
	recovered := c.sessions.RecoverTurn(sessionID)
	history, note, err := c.sessions.Load(sessionID)
	if err != nil {
		return res, err
	}
	for _, n := range []string{recovered, note} {
		if n != "" {
			c.logf("%s", n)
			tr := session.OpenTranscript(c.stateDir, sessionID)
			tr.Note(n)
			tr.Close()
		}
	}
	view := c.sessions.LoadView(sessionID, history)
	res.TokensBefore = messageTokens(applyView(history, view))
	cmp := compactor{provider: provider, modelName: pm.cfg.Name, maxTokens: pm.cfg.MaxTokens, window: c.window(pm).Tokens}
	next, err := cmp.compact(ctx, history, view, 0, true)
	if err != nil {
		return res, err
	}
	if err := c.sessions.SaveView(sessionID, next); err != nil {
		return res, err
	}
	res.TokensAfter = messageTokens(applyView(history, next))
	tr := session.OpenTranscript(c.stateDir, sessionID)
	tr.Note(fmt.Sprintf("compacted on request: about %d → %d tokens (%s)", res.TokensBefore, res.TokensAfter, next.Describe(len(history))))
	tr.Close()
	return res, nil
}
