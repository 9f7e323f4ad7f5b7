package trust

import (
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/wire"
)

// LaunchChoice is how the user chose, on its launch card, to start a
// server whose entry does not say how to confine it: one an ACP editor
// passes (ACP has no such key) or a repository's that sets neither
// sandbox nor network. The choice is part of the approval: the stored
// fingerprint is the one of the server as the choice starts it, so the
// same command approved confined never runs with the network, and the
// gate finds the choice again from the fingerprint (no other record).
type LaunchChoice string

// The launch choices.
const (
	ChoiceConfined   LaunchChoice = ""           // as the entry says: confined, no network
	ChoiceNetwork    LaunchChoice = "network"    // confined, with the network
	ChoiceUnconfined LaunchChoice = "unconfined" // sandbox = "none": your full access
)

// OffersChoices reports whether the launch card of s offers the three
// choices: a stdio server of a repository or an editor, confined by
// default (its entry sets neither sandbox nor network), on a system that
// can confine it. Where the entry says, the card offers only that.
func OffersChoices(s config.Server) bool {
	return s.Origin != config.User && !s.Remote() && s.Sandbox == "" && !s.Network &&
		s.SandboxMode() != config.SandboxNone && sandbox.Supported().Filesystem
}

// LaunchChoices are the choices s's card offers, the entry's own first.
func LaunchChoices(s config.Server) []LaunchChoice {
	if !OffersChoices(s) {
		return []LaunchChoice{ChoiceConfined}
	}
	return []LaunchChoice{ChoiceConfined, ChoiceNetwork, ChoiceUnconfined}
}

// ChoiceOfOption is the choice a launch card's option id stands for.
func ChoiceOfOption(optionID string) LaunchChoice {
	switch optionID {
	case wire.OptionLaunchNetwork:
		return ChoiceNetwork
	case wire.OptionLaunchUnconfined:
		return ChoiceUnconfined
	}
	return ChoiceConfined
}

// Apply is s as the choice starts it; a choice s's card does not offer
// leaves it as it is.
func (c LaunchChoice) Apply(s config.Server) config.Server {
	if c == ChoiceConfined || !OffersChoices(s) {
		return s
	}
	switch c {
	case ChoiceNetwork:
		s.Network = true
	case ChoiceUnconfined:
		s.Sandbox = config.SandboxNone
	}
	return s
}

// Label is how the card and the server list name the choice.
func (c LaunchChoice) Label() string {
	switch c {
	case ChoiceNetwork:
		return "allow with network"
	case ChoiceUnconfined:
		return "allow unconfined"
	}
	return "allow, confined"
}

// ServerLaunch is where srv stands in the store, and srv as its approval
// starts it (with the choice its card was answered with applied): Trusted
// when the stored fingerprint is that of srv under one of the choices its
// card offers, ApprovalStale for another one, NeedsApproval for none. On
// an error the state is NeedsApproval (fail closed).
func (s *Store) ServerLaunch(srv config.Server) (LaunchState, config.Server, error) {
	f, err := s.read()
	if err != nil {
		return NeedsApproval, srv, err
	}
	a, ok := f.server(srv.WorkspaceRoot, srv.Name)
	if !ok {
		return NeedsApproval, srv, nil
	}
	for _, c := range LaunchChoices(srv) {
		run := c.Apply(srv)
		if a.Fingerprint != "" && a.Fingerprint == ServerFingerprint(run) {
			return Trusted, run, nil
		}
	}
	return ApprovalStale, srv, nil
}

// ChoiceOf is which of its card's choices run (srv after ServerLaunch)
// stands for.
func ChoiceOf(srv, run config.Server) LaunchChoice {
	for _, c := range LaunchChoices(srv) {
		if ServerFingerprint(c.Apply(srv)) == ServerFingerprint(run) {
			return c
		}
	}
	return ChoiceConfined
}
