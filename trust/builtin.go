package trust

import (
	"fmt"
	"strings"
)

// DecideCommand decides a built-in run_command (G3): it asks, unless
// autopilot is on and ClassifyCommand calls the command safe. It never
// denies: the person who is asked decides.
func DecideCommand(argv []string, shell bool, autopilot bool) Decision {
	v := ClassifyCommand(argv, shell)
	switch {
	case v.Safe && autopilot:
		return Decision{Action: Allow, Reason: "autopilot: the command classifier calls this command read-only"}
	case v.Safe:
		return Decision{Action: Ask, Reason: "autopilot is off, so every command asks (the classifier calls this one read-only)"}
	}
	return Decision{Action: Ask, Reason: "the command classifier flagged it: " + strings.Join(v.Reasons, "; ")}
}

// DecideWrite decides a built-in write_file or edit_file of relPath. It
// always asks: G3 lets autopilot skip only commands the classifier calls
// read-only, and a write is never read-only (a write to .git/hooks,
// .agentls/ or a build file is code execution by another route). autopilot
// only changes the reason, so the card can say why autopilot did not apply.
func DecideWrite(relPath string, autopilot bool) Decision {
	if autopilot {
		return Decision{Action: Ask, Reason: fmt.Sprintf("writing %s asks even under autopilot: autopilot skips only commands the classifier calls read-only", relPath)}
	}
	return Decision{Action: Ask, Reason: fmt.Sprintf("writing %s asks: every file write asks", relPath)}
}
