package acp

import (
	"context"
	"fmt"

	"github.com/agentls/agentls/internal/jsonrpc"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// ACP's session modes are agentls's modes (docs/protocol.md section 8):
// session/new, session/load and session/resume answer them with the
// current one, session/set_mode and the "mode" session config option set
// it, and current_mode_update and config_option_update say when it
// changed (an accepted plan switches plan to ask within the turn).

// modeConfigID and modelConfigID are the ids of the session config
// options of the mode and of the model (the session's model profile,
// docs/config.md [model.profiles.NAME]: agent.Core.SetModel).
const (
	modeConfigID  = "mode"
	modelConfigID = "model"
)

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
	CurrentValue string         `json:"currentValue"`
	Options      []configChoice `json:"options"`
}

type configChoice struct {
	Value       string `json:"value"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

type setModeRequest struct {
	SessionID string    `json:"sessionId"`
	ModeID    wire.Mode `json:"modeId"`
}

type setConfigOptionRequest struct {
	SessionID string `json:"sessionId"`
	ConfigID  string `json:"configId"`
	Value     string `json:"value"`
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

func modeOption(m wire.Mode) configOption {
	o := configOption{ID: modeConfigID, Name: "Mode", Description: "What runs without asking", Category: "mode", Type: "select", CurrentValue: string(m)}
	for _, x := range wire.Modes {
		o.Options = append(o.Options, configChoice{Value: string(x), Name: x.Title(), Description: modeDescriptions[x]})
	}
	return o
}

// modelOption is the model option of a session on profile current: each
// profile that resolves, and the current one whatever it is.
func modelOption(current string, models []wire.ModelInfo) configOption {
	o := configOption{ID: modelConfigID, Name: "Model", Description: "The model the next turn talks to (the user config's model profiles)", Category: "model", Type: "select", CurrentValue: current}
	for _, m := range models {
		if m.Error != "" && m.Profile != current {
			continue
		}
		name, desc := m.Profile, "unusable: "+m.Error
		if m.Error == "" {
			name, desc = fmt.Sprintf("%s (%s)", m.Profile, m.Name), m.Provider+" "+m.Name
		}
		o.Options = append(o.Options, configChoice{Value: m.Profile, Name: trust.Visible(name), Description: trust.Visible(desc)})
	}
	return o
}

// configOptions are the session's config options, with its mode m.
func (s *session) configOptions(m wire.Mode) []configOption {
	s.mu.Lock()
	id := s.coreID
	s.mu.Unlock()
	return []configOption{modeOption(m), modelOption(s.core.Profile(id), s.core.Models())}
}

// modeUpdates say the session's mode is now m; options are its config
// options then.
func modeUpdates(m wire.Mode, options []configOption) []sessionUpdate {
	return []sessionUpdate{
		{SessionUpdate: updateCurrentMode, CurrentModeID: m},
		{SessionUpdate: updateConfigOption, ConfigOptions: options},
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
	for _, u := range modeUpdates(m, s.configOptions(m)) {
		s.send(u)
	}
	return nil
}

// setModel switches the session's conversation to a model profile for
// its next turn (the next conversation /new starts takes it too).
func (s *session) setModel(profile string) error {
	s.mu.Lock()
	id := s.coreID
	s.mu.Unlock()
	if err := s.core.SetModel(id, profile); err != nil {
		return jsonrpc.Errorf(jsonrpc.InvalidParams, "%s", err.Error())
	}
	s.send(sessionUpdate{SessionUpdate: updateConfigOption, ConfigOptions: s.configOptions(s.mode())})
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
	switch p.ConfigID {
	case modeConfigID:
		err = s.setMode(wire.Mode(p.Value))
	case modelConfigID:
		err = s.setModel(p.Value)
	default:
		err = jsonrpc.Errorf(jsonrpc.InvalidParams, "unknown configId %q: agentls's session config options are %q and %q", p.ConfigID, modeConfigID, modelConfigID)
	}
	if err != nil {
		return setConfigOptionResponse{}, err
	}
	return setConfigOptionResponse{ConfigOptions: s.configOptions(s.mode())}, nil
}

// liveSession is the session of id, or ACP's resource-not-found error.
func (a *Agent) liveSession(id string) (*session, error) {
	if s := a.session(id); s != nil {
		return s, nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.ResourceNotFound, "unknown sessionId %q: start one with session/new or session/load (live sessions: %s)", id, a.sessionIDs())
}
