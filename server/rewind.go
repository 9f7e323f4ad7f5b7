package server

import (
	"context"

	"github.com/agentls/agentls/internal/jsonrpc"

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
