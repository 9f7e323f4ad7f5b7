package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// The user's controls over the agent from an editor without a UI of its
// own for them (Helix): the mode and the saved rules, as commands and code
// actions. The decisions stay the core's; these only pass the choice down.

// cmdSetMode is agentls.setMode: the commands' session takes the mode, and
// so does every session not set since (new ones too), since an editor that
// has only commands has no other session to name.
func (s *Server) cmdSetMode(_ context.Context, a wire.SetModeArgs) (wire.ModeResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.ModeResult{}, err
	}
	m := wire.Mode(a.Mode)
	if err := core.SetMode("", m); err != nil {
		return wire.ModeResult{}, badParams(err.Error())
	}
	s.mu.Lock()
	id := s.cmdSession
	s.mu.Unlock()
	if id != "" {
		if err := core.SetMode(id, m); err != nil {
			return wire.ModeResult{}, badParams(err.Error())
		}
	}
	s.showMessage(logInfo, "agentls: mode: "+m.Title())
	return wire.ModeResult{SessionID: id, Mode: m}, nil
}

// cmdSetModel is agentls.setModel: the commands' session switches to the
// profile for its next turn, and so does every session not set since.
func (s *Server) cmdSetModel(_ context.Context, a wire.SetModelArgs) (wire.ModelResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.ModelResult{}, err
	}
	if err := core.SetModel("", a.Profile); err != nil {
		return wire.ModelResult{}, badParams(err.Error())
	}
	s.mu.Lock()
	id := s.cmdSession
	s.mu.Unlock()
	if id != "" {
		if err := core.SetModel(id, a.Profile); err != nil {
			return wire.ModelResult{}, badParams(err.Error())
		}
	}
	m := core.ModelOf(id)
	s.showMessage(logInfo, "agentls: model: "+modelTitle(m))
	return wire.ModelResult{SessionID: id, Model: m}, nil
}

// modelTitle names a profile's model for a message or an action's title.
func modelTitle(m wire.ModelInfo) string {
	if m.Error != "" || m.Name == "" {
		return m.Profile
	}
	return fmt.Sprintf("%s (%s)", m.Profile, trust.Visible(m.Name))
}

// cmdRules is agentls.rules: the saved rules, in a message.
func (s *Server) cmdRules(ctx context.Context, _ wire.NoArgs) (wire.RulesResult, error) {
	res, err := s.agentRules(ctx, wire.NoParams{})
	if err != nil {
		return res, err
	}
	if len(res.Rules) == 0 {
		s.showMessage(logInfo, "agentls: no saved rules in this workspace (a card's \"Always allow\" saves one)")
		return res, nil
	}
	var b strings.Builder
	b.WriteString("agentls: saved rules (code action 'agentls: Forget rule: ...' revokes one):")
	for _, r := range res.Rules {
		fmt.Fprintf(&b, "\n%s (%s)", trust.Visible(r.ID), trust.Visible(r.Workspace))
	}
	s.showMessage(logInfo, b.String())
	return res, nil
}

// cmdRevokeRule is agentls.rules.revoke.
func (s *Server) cmdRevokeRule(ctx context.Context, a wire.RuleArgs) (wire.RevokeRuleResult, error) {
	res, err := s.agentRevokeRule(ctx, wire.RevokeRuleParams{ID: a.ID})
	if err == nil {
		s.showMessage(logInfo, "agentls: forgot the rule "+trust.Visible(a.ID))
	}
	return res, err
}

// controlActions offer each mode the commands' session is not in, and to
// forget each saved rule of the workspace, to a client without an agentls
// plugin (Helix, a plain LSP setup): a plugin has its own commands.
func (s *Server) controlActions() []codeAction {
	s.mu.Lock()
	core, id, plugin := s.core, s.cmdSession, s.client.plugin
	s.mu.Unlock()
	if core == nil || plugin {
		return nil
	}
	now := core.Mode(id)
	var actions []codeAction
	for _, m := range wire.Modes {
		if m == now {
			continue
		}
		title := fmt.Sprintf("agentls: Mode: %s (now %s)", m.Title(), now.Title())
		actions = append(actions, codeAction{Title: title, Kind: "source",
			Command: commandFor(title, wire.SetModeCommand, wire.SetModeArgs{Mode: string(m)})})
	}
	cur := core.Profile(id)
	for _, m := range core.Models() {
		if m.Profile == cur || m.Error != "" {
			continue
		}
		title := fmt.Sprintf("agentls: Model: %s (now %s)", modelTitle(m), trust.Visible(cur))
		actions = append(actions, codeAction{Title: title, Kind: "source",
			Command: commandFor(title, wire.SetModelCommand, wire.SetModelArgs{Profile: m.Profile})})
	}
	actions = append(actions, s.rewindActions(id)...)
	actions = append(actions, s.resumeActions(id)...)
	rules, err := core.Rules((&workspace{s: s}).Folders())
	if err != nil {
		return actions
	}
	for _, r := range rules {
		title := "agentls: Forget rule: " + trust.Visible(r.ID)
		actions = append(actions, codeAction{Title: title, Kind: "source",
			Command: commandFor(title, wire.RevokeRuleCommand, wire.RuleArgs{ID: r.ID})})
	}
	return actions
}
