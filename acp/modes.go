package acp

import (
	"context"

	"github.com/agentls/agentls/internal/jsonrpc"
	"github.com/agentls/agentls/wire"
)

// ACP's session modes are agentls's modes (docs/protocol.md section 8):
// session/new, session/load and session/resume answer them with the
// current one, session/set_mode and the "mode" session config option set
// it, and current_mode_update and config_option_update say when it
// changed (an accepted plan switches plan to ask within the turn).

// modeConfigID is the id of the mode's session config option.
const modeConfigID = "mode"

type sessionModeState struct {
	CurrentModeID  wire.Mode     `json:"currentModeId"`
	AvailableModes []sessionMode `json:"availableModes"`
}

type sessionMode struct {
	ID          wire.Mode `json:"id"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
}

type configOption struct {
	ID           string         `json:"id"`
	Name         string         `json:"name"`
	Description  string         `json:"description"`
	Category     string         `json:"category"`
	Type         string         `json:"type"`
	CurrentValue wire.Mode      `json:"currentValue"`
	Options      []configChoice `json:"options"`
}

type configChoice struct {
	Value       wire.Mode `json:"value"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
}

type setModeRequest struct {
	SessionID string    `json:"sessionId"`
	ModeID    wire.Mode `json:"modeId"`
}

type setConfigOptionRequest struct {
	SessionID string    `json:"sessionId"`
	ConfigID  string    `json:"configId"`
	Value     wire.Mode `json:"value"`
}

type setConfigOptionResponse struct {
	ConfigOptions []configOption `json:"configOptions"`
}

// modeDescriptions say what each mode lets run without a card.
var modeDescriptions = map[wire.Mode]string{
	wire.ModePlan:      "Read-only: reads, searches and read-only commands only; ends with a plan you may accept",
	wire.ModeAsk:       "Every change asks",
	wire.ModeAutoEdit:  "File edits inside the workspace apply without asking; commands and MCP calls ask",
	wire.ModeAutopilot: "Read-only commands run confined without asking; edits and MCP calls ask",
}

// mode is the mode of the session's conversation now.
func (s *session) mode() wire.Mode {
	s.mu.Lock()
	id := s.coreID
	s.mu.Unlock()
	return s.core.Mode(id)
}

func modeState(m wire.Mode) *sessionModeState {
	st := &sessionModeState{CurrentModeID: m}
	for _, x := range wire.Modes {
		st.AvailableModes = append(st.AvailableModes, sessionMode{ID: x, Name: x.Title(), Description: modeDescriptions[x]})
	}
	return st
}

func configOptions(m wire.Mode) []configOption {
	o := configOption{ID: modeConfigID, Name: "Mode", Description: "What runs without asking", Category: "mode", Type: "select", CurrentValue: m}
	for _, x := range wire.Modes {
		o.Options = append(o.Options, configChoice{Value: x, Name: x.Title(), Description: modeDescriptions[x]})
	}
	return []configOption{o}
}

// modeUpdates say the session's mode is now m.
func modeUpdates(m wire.Mode) []sessionUpdate {
	return []sessionUpdate{
		{SessionUpdate: updateCurrentMode, CurrentModeID: m},
		{SessionUpdate: updateConfigOption, ConfigOptions: configOptions(m)},
	}
}

// setMode sets the session's mode (its conversation's, and the next
// conversation /new starts takes it too).
func (s *session) setMode(m wire.Mode) error {
	s.mu.Lock()
	id := s.coreID
	s.mu.Unlock()
	if err := s.core.SetMode(id, m); err != nil {
		return jsonrpc.Errorf(jsonrpc.InvalidParams, "%s", err.Error())
	}
	for _, u := range modeUpdates(m) {
		s.send(u)
	}
	return nil
}

func (a *Agent) sessionSetMode(_ context.Context, p setModeRequest) (emptyResponse, error) {
	s, err := a.liveSession(p.SessionID)
	if err != nil {
		return emptyResponse{}, err
	}
	return emptyResponse{}, s.setMode(p.ModeID)
}

func (a *Agent) sessionSetConfigOption(_ context.Context, p setConfigOptionRequest) (setConfigOptionResponse, error) {
	s, err := a.liveSession(p.SessionID)
	if err != nil {
		return setConfigOptionResponse{}, err
	}
	if p.ConfigID != modeConfigID {
		return setConfigOptionResponse{}, jsonrpc.Errorf(jsonrpc.InvalidParams, "unknown configId %q: agentls's session config option is %q", p.ConfigID, modeConfigID)
	}
	if err := s.setMode(p.Value); err != nil {
		return setConfigOptionResponse{}, err
	}
	return setConfigOptionResponse{ConfigOptions: configOptions(s.mode())}, nil
}

// liveSession is the session of id, or ACP's resource-not-found error.
func (a *Agent) liveSession(id string) (*session, error) {
	if s := a.session(id); s != nil {
		return s, nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.ResourceNotFound, "unknown sessionId %q: start one with session/new or session/load (live sessions: %s)", id, a.sessionIDs())
}
