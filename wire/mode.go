package wire

import (
	"fmt"
	"strings"
)

// Mode is how much a session's calls may do without a card
// (docs/protocol.md section 2, agent/setMode).
type Mode string

// The modes.
const (
	// ModePlan: read-only. Only what cannot change anything runs (reads,
	// searches, a command the kernel confines, an MCP tool the policy
	// allows and its server marks read-only); the model ends with a plan
	// (propose_plan), which the user may accept: the session is then in
	// ModeAsk and carries it out.
	ModePlan Mode = "plan"
	// ModeAsk: every gate asks (the default).
	ModeAsk Mode = "ask"
	// ModeAutoEdit: a write or edit of a file inside the workspace applies
	// without a card (never repository metadata); everything else asks.
	ModeAutoEdit Mode = "auto-edit"
	// ModeAutopilot: a command the classifier calls read-only runs
	// without a card, confined by the kernel; everything else asks.
	ModeAutopilot Mode = "autopilot"
)

// Modes are every mode, as a picker lists them.
var Modes = []Mode{ModePlan, ModeAsk, ModeAutoEdit, ModeAutopilot}

// ParseMode reads a mode's name; "" is an error too.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown mode %q: expected one of %s", s, strings.Join(names, ", "))
}

// Title is the mode as a status line shows it.
func (m Mode) Title() string {
	switch m {
	case ModePlan:
		return "Plan (read-only)"
	case ModeAsk:
		return "Ask"
	case ModeAutoEdit:
		return "Auto-edit"
	case ModeAutopilot:
		return "Autopilot"
	}
	return string(m)
}
