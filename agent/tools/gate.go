package tools

import (
	"context"
	"github.com/agentls/agentls/wire"
	"path/filepath"

	"github.com/agentls/agentls/trust"
)

// The options of approval cards (docs/protocol.md section 4).
var (
	AllowOnce  = wire.ApprovalOption{OptionID: string(wire.OptionAllowOnce), Name: "Allow once", Kind: wire.OptionAllowOnce}
	RejectOnce = wire.ApprovalOption{OptionID: string(wire.OptionRejectOnce), Name: "Deny", Kind: wire.OptionRejectOnce}
)

func allowAlways(tool string) wire.ApprovalOption {
	return wire.ApprovalOption{OptionID: string(wire.OptionAllowAlways), Name: "Always allow " + tool, Kind: wire.OptionAllowAlways}
}

// decideCommand is trust's G3 decision for a run_command: it asks unless
// autopilot is on and the classifier (biased to over-flag) calls it safe.
func decideCommand(argv []string, shell, autopilot bool) trust.Decision {
	return trust.DecideCommand(argv, shell, autopilot)
}

// decideWrite is trust's decision for write_file / edit_file of t.
func decideWrite(folders []string, t target, autopilot bool) trust.Decision {
	// Named by the file written: a link's name is not what changes.
	rel := t.Real
	if r, err := filepath.Rel(folderOf(folders, t.Real), t.Real); err == nil {
		rel = r
	}
	return trust.DecideWrite(rel, autopilot)
}

// gate hands d to the call's gate; only whether the call may go on matters.
func gate(ctx context.Context, call Call, d trust.Decision, card wire.Approval) error {
	_, err := call.Gate(ctx, d, card)
	return err
}
