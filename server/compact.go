package server

import (
	"context"
	"fmt"

	"github.com/agentls/agentls/internal/jsonrpc"
	"github.com/agentls/agentls/wire"
)

// agentCompact is agent/compact {sessionId}: it compacts what is sent next
// for the session (old tool results elided, older turns summarized by the
// model) and answers when done. The session file keeps everything.
func (s *Server) agentCompact(ctx context.Context, p wire.CompactParams) (wire.CompactResult, error) {
	if p.SessionID == "" {
		return wire.CompactResult{}, badParams("sessionId is missing")
	}
	core, err := s.ensureCore()
	if err != nil {
		return wire.CompactResult{}, err
	}
	res, err := core.Compact(ctx, p.SessionID)
	if err != nil {
		return wire.CompactResult{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: %v", err)
	}
	return res, nil
}

// cmdCompact is agentls.compact [sessionId?] (the commands' session when
// absent). It returns at once; the result is a showMessage.
func (s *Server) cmdCompact(_ context.Context, a wire.SessionArgs) (wire.SessionResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.SessionResult{}, err
	}
	sid := a.SessionID
	if sid == "" {
		s.mu.Lock()
		sid = s.cmdSession
		s.mu.Unlock()
	}
	if sid == "" {
		return wire.SessionResult{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: no session to compact yet: run a task first, or pass a sessionId (agent/sessions lists them)")
	}
	if _, err := core.SessionExists(sid); err != nil {
		return wire.SessionResult{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: %v", err)
	}
	s.goFn(func() {
		res, err := core.Compact(s.ctx, sid)
		if err != nil {
			s.showMessage(logWarning, "agentls: compact: "+err.Error())
			return
		}
		s.showMessage(logInfo, fmt.Sprintf("agentls: compacted session %s: about %d → %d tokens sent next (the session file keeps everything)", sid, res.TokensBefore, res.TokensAfter))
	})
	return wire.SessionResult{SessionID: sid}, nil
}
