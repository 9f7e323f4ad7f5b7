package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/jsonrpc"
	"github.com/agentls/agentls/trust"

	"github.com/agentls/agentls/wire"
)

// agentRewind is agent/rewind {sessionId, turn, force?}: the files that
// turn and later ones changed go back as they were before it, through the
// editor's buffers where it has them (workspace/applyEdit, so its undo
// keeps working), and the session forks before the turn. A file changed
// outside agentls since is listed in changed and nothing is restored
// unless force is set: the client asks, then calls again.
func (s *Server) agentRewind(ctx context.Context, p wire.RewindParams) (wire.RewindResult, error) {
	if p.SessionID == "" {
		return wire.RewindResult{}, badParams("sessionId is missing")
	}
	core, err := s.ensureCore()
	if err != nil {
		return wire.RewindResult{}, err
	}
	res, err := core.Rewind(ctx, p.SessionID, p.Turn, p.Force, &workspace{s: s})
	if err != nil {
		return wire.RewindResult{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: %v", err)
	}
	return res, nil
}

// agentTurns is agent/turns {sessionId}: the turns agent/rewind can go
// back before, for the client's picker.
func (s *Server) agentTurns(_ context.Context, p wire.TurnsParams) (wire.TurnsResult, error) {
	if p.SessionID == "" {
		return wire.TurnsResult{}, badParams("sessionId is missing")
	}
	core, err := s.ensureCore()
	if err != nil {
		return wire.TurnsResult{}, err
	}
	res, err := core.Turns(p.SessionID)
	if err != nil {
		return wire.TurnsResult{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: %v", err)
	}
	return res, nil
}

// cmdRewind is agentls.rewind [turn, force?]: the commands' session goes
// back to before turn in the background (agent/rewind through the
// editor's buffers), a message saying what was done. When files changed
// outside agentls since and force is not set, the message names them and
// nothing is restored; the code action "Rewind ... overwriting" (force)
// is then offered for that turn.
func (s *Server) cmdRewind(_ context.Context, a wire.RewindArgs) (wire.SessionResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.SessionResult{}, err
	}
	s.mu.Lock()
	sid := s.cmdSession
	s.mu.Unlock()
	if sid == "" {
		return wire.SessionResult{}, badParams("no session to rewind yet: run a task first")
	}
	s.goFn(func() {
		res, err := core.Rewind(s.ctx, sid, a.Turn, a.Force, &workspace{s: s})
		s.mu.Lock()
		s.rewindChanged = nil
		if err == nil && len(res.Changed) > 0 && !a.Force {
			s.rewindChanged = &res
		}
		s.mu.Unlock()
		switch {
		case err != nil:
			s.showMessage(logWarning, "agentls: rewind: "+err.Error())
		case len(res.Changed) > 0 && !a.Force:
			s.showMessage(logWarning, fmt.Sprintf("agentls: going back to before turn %d would overwrite %d file(s) changed outside agentls since: %s. Nothing was restored; the code action 'agentls: Rewind to before turn %d, overwriting them' does it.",
				a.Turn, len(res.Changed), visibleList(res.Changed), a.Turn))
		default:
			msg := "agentls: " + res.Message
			if len(res.NotRestored) > 0 {
				var why []string
				for _, f := range res.NotRestored {
					why = append(why, trust.Visible(f.Path)+" ("+trust.Visible(f.Why)+")")
				}
				msg += ": not restored " + strings.Join(why, ", ")
			}
			s.showMessage(logInfo, msg+". What you ask next continues from before turn "+fmt.Sprint(a.Turn)+".")
		}
	})
	return wire.SessionResult{SessionID: sid}, nil
}

func visibleList(paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = trust.Visible(p)
	}
	return strings.Join(out, ", ")
}

// rewindActions offer, to a client without a plugin (Helix), going back
// to before each turn of the commands' session, and after a rewind that
// found files changed outside agentls, doing it overwriting them.
func (s *Server) rewindActions(sid string) []codeAction {
	s.mu.Lock()
	core, pending := s.core, s.rewindChanged
	s.mu.Unlock()
	if core == nil || sid == "" {
		return nil
	}
	turns, err := core.Turns(sid)
	if err != nil {
		return nil
	}
	var actions []codeAction
	if pending != nil && pending.SessionID == sid && pending.Turn <= len(turns.Turns) {
		title := fmt.Sprintf("agentls: Rewind to before turn %d, overwriting them (%d file(s) changed outside agentls)", pending.Turn, len(pending.Changed))
		actions = append(actions, codeAction{Title: title, Kind: "source",
			Command: commandFor(title, wire.RewindCommand, wire.RewindArgs{Turn: pending.Turn, Force: true})})
	}
	for _, t := range turns.Turns {
		title := fmt.Sprintf("agentls: Rewind to before turn %d: %s (%d file(s))", t.Turn, trust.Visible(t.Prompt), len(t.Files))
		actions = append(actions, codeAction{Title: title, Kind: "source",
			Command: commandFor(title, wire.RewindCommand, wire.RewindArgs{Turn: t.Turn})})
	}
	return actions
}
