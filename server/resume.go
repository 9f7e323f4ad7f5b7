package server

import (
	"context"
	"fmt"

	"github.com/agentls/agentls/internal/jsonrpc"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// resumeOffered is how many past sessions the code actions offer to
// resume, the most recent first (`agentls sessions` lists them all).
const resumeOffered = 5

// cmdResume is agentls.resume [sessionId]: the commands' session becomes
// that past session of the workspace, so the next task continues it (the
// resume picker of an editor whose only picker is the code action menu).
func (s *Server) cmdResume(_ context.Context, a wire.ResumeArgs) (wire.SessionResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.SessionResult{}, err
	}
	if a.SessionID == "" {
		return wire.SessionResult{}, badParams("agentls.resume needs a session id (agent/sessions or `agentls sessions` lists them)")
	}
	sessions, err := core.Sessions()
	if err != nil {
		return wire.SessionResult{}, fmt.Errorf("agentls: listing sessions: %w", err)
	}
	for _, info := range sessions {
		if info.SessionID != a.SessionID {
			continue
		}
		s.mu.Lock()
		s.cmdSession = info.SessionID
		s.mu.Unlock()
		s.showMessage(logInfo, fmt.Sprintf("agentls: resumed session %s: %s (%s): the next task continues it (agentls.transcript opens it)",
			info.SessionID, trust.Visible(info.Title), turnsOf(info.Turns)))
		return wire.SessionResult{SessionID: info.SessionID}, nil
	}
	return wire.SessionResult{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: no session %q in this workspace (agent/sessions or `agentls sessions` lists them)", trust.Visible(a.SessionID))
}

// resumeActions offer to resume each of the most recent past sessions
// other than the commands' session sid.
func (s *Server) resumeActions(sid string) []codeAction {
	s.mu.Lock()
	core := s.core
	s.mu.Unlock()
	if core == nil {
		return nil
	}
	sessions, err := core.Sessions()
	if err != nil {
		return nil
	}
	var actions []codeAction
	for _, info := range sessions {
		if len(actions) == resumeOffered {
			break
		}
		if info.SessionID == sid || info.Turns == 0 {
			continue
		}
		title := fmt.Sprintf("agentls: Resume session: %s (%s, %s)", capRunes(trust.Visible(info.Title), 50), turnsOf(info.Turns), info.UpdatedAt.Local().Format("Jan 2 15:04"))
		actions = append(actions, codeAction{Title: title, Kind: "source",
			Command: commandFor(title, wire.ResumeCommand, wire.ResumeArgs{SessionID: info.SessionID})})
	}
	return actions
}

// turnsOf is "1 turn", "3 turns".
func turnsOf(n int) string {
	if n == 1 {
		return "1 turn"
	}
	return fmt.Sprintf("%d turns", n)
}
