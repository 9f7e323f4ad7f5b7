package agent

import "github.com/agentls/agentls/trust"

// The options of approval cards (PROTOCOL.md section 4).
var (
	allowOnce  = ApprovalOption{OptionID: "allow_once", Name: "Allow once", Kind: "allow_once"}
	rejectOnce = ApprovalOption{OptionID: "reject_once", Name: "Deny", Kind: "reject_once"}
)

func allowAlways(tool string) ApprovalOption {
	return ApprovalOption{OptionID: "allow_always", Name: "Always allow " + tool, Kind: "allow_always"}
}

// decideCommandAsks says whether a run_command must ask: always, unless
// autopilot is on and the classifier calls it safe (G3). The classifier is
// biased to over-flag, so autopilot never runs something it doubts.
func decideCommandAsks(argv []string, shell, autopilot bool) (ask bool, reasons []string) {
	v := trust.ClassifyCommand(argv, shell)
	if autopilot && v.Safe {
		return false, nil
	}
	return true, v.Reasons
}

// decideWriteAsks says whether write_file / edit_file must ask: unless autopilot.
func decideWriteAsks(autopilot bool) bool { return !autopilot }
