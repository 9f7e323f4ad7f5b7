package trust

import (
	"fmt"
	"strings"

	"github.com/agentls/agentls/wire"
)

// DecideCommand decides a built-in run_command (G3) in a session of mode,
// with saved the workspace's rule that names exactly this command (nil:
// none). It asks, except:
//   - under autopilot, and in plan mode, a command ClassifyCommand calls
//     safe is allowed, ReadOnly: it runs confined by the kernel;
//   - outside plan mode, a command a saved rule names is allowed, as a card
//     answered "Allow" would be (Rule says which).
//
// It never denies: the person who is asked decides (plan mode's refusal is
// its gate's).
func DecideCommand(argv []string, shell bool, mode wire.Mode, saved *Rule) Decision {
	v := ClassifyCommand(argv, shell)
	switch {
	case v.Safe && mode == wire.ModeAutopilot:
		return Decision{Action: Allow, ReadOnly: true, Reason: "autopilot: the command classifier calls this command read-only"}
	case v.Safe && mode == wire.ModePlan:
		return Decision{Action: Allow, ReadOnly: true, Reason: "plan mode: the command classifier calls this command read-only"}
	case mode == wire.ModePlan:
		return Decision{Action: Ask, Reason: "plan mode runs only commands the classifier calls read-only, and it flagged this one: " + strings.Join(v.Reasons, "; ")}
	case saved != nil:
		return Decision{Action: Allow, Rule: saved, Reason: "allowed by your rule for this workspace: " + saved.Describe() + " (agentls rules list shows it, agentls rules revoke forgets it)"}
	case v.Safe:
		return Decision{Action: Ask, Reason: "autopilot is off, so every command asks (the classifier calls this one read-only)"}
	}
	return Decision{Action: Ask, Reason: "the command classifier flagged it: " + strings.Join(v.Reasons, "; ")}
}

// DecideWrite decides a built-in write_file or edit_file of relPath in a
// session of mode. metadata names what the file is when it is repository
// metadata (git metadata, .agentls/: a write there is code execution by
// another route), "" for an ordinary file of the project; saved is the
// workspace's rule for the file's folder (nil: none). It asks, except:
// in auto-edit mode, or under a saved rule, an ordinary file is allowed.
// Metadata asks in every mode, and no rule covers it.
func DecideWrite(relPath string, mode wire.Mode, metadata string, saved *Rule) Decision {
	switch {
	case metadata != "":
		return Decision{Action: Ask, Reason: fmt.Sprintf("writing %s asks in every mode: it is %s", relPath, metadata)}
	case mode == wire.ModePlan:
		return Decision{Action: Ask, Reason: fmt.Sprintf("writing %s: plan mode writes nothing", relPath)}
	case mode == wire.ModeAutoEdit:
		return Decision{Action: Allow, Reason: fmt.Sprintf("auto-edit: writing %s, a file inside the workspace, applies without a card", relPath)}
	case saved != nil:
		return Decision{Action: Allow, Rule: saved, Reason: fmt.Sprintf("writing %s is allowed by your rule for this workspace: %s", relPath, saved.Describe())}
	case mode == wire.ModeAutopilot:
		return Decision{Action: Ask, Reason: fmt.Sprintf("writing %s asks even under autopilot: autopilot skips only commands the classifier calls read-only", relPath)}
	}
	return Decision{Action: Ask, Reason: fmt.Sprintf("writing %s asks: every file write asks", relPath)}
}
