package tools

import (
	"context"
	"path/filepath"

	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// The options of approval cards (docs/protocol.md section 4).
var (
	AllowOnce  = wire.ApprovalOption{OptionID: string(wire.OptionAllowOnce), Name: "Allow once", Kind: wire.OptionAllowOnce}
	RejectOnce = wire.ApprovalOption{OptionID: string(wire.OptionRejectOnce), Name: "Deny", Kind: wire.OptionRejectOnce}
)

func allowAlways(tool string) wire.ApprovalOption {
	return wire.ApprovalOption{OptionID: string(wire.OptionAllowAlways), Name: "Always allow " + tool, Kind: wire.OptionAllowAlways}
}

// ruleOptions are a built-in card's options: with allow_always naming the
// rule it saves when there is one (the card's Rule says it too), and
// reject_always naming the deny rule it saves when there is one.
func ruleOptions(r, deny *trust.Rule) []wire.ApprovalOption {
	opts := []wire.ApprovalOption{AllowOnce}
	if r != nil {
		opts = append(opts, wire.ApprovalOption{OptionID: string(wire.OptionAllowAlways), Name: "Always allow in this workspace: " + r.Describe(), Kind: wire.OptionAllowAlways})
	}
	opts = append(opts, RejectOnce)
	if deny != nil {
		opts = append(opts, wire.ApprovalOption{OptionID: string(wire.OptionRejectAlways), Name: "Always deny in this workspace: " + deny.Describe(), Kind: wire.OptionRejectAlways})
	}
	return opts
}

func ruleID(r *trust.Rule) string {
	if r == nil {
		return ""
	}
	return r.ID()
}

// Keep is what a card's "always" options keep when the user picks one.
// The gate that put the card saves it (Call.Gate), so no tool stores a
// rule or an always-allow itself, and what is kept is only what the card
// offered. The zero Keep keeps nothing.
type Keep struct {
	// Root is the workspace folder Allow and Deny are rules of.
	Root string
	// Allow is kept on allow_always, Deny on reject_always (nil: not offered).
	Allow, Deny *trust.Rule
	// Tool is an MCP tool whose allow_always is kept bound to its
	// DefinitionHash: a changed definition asks again.
	Tool, DefinitionHash string
}

// offeredRule is the rule a card may offer: none in plan mode (nothing
// there may be allowed), none without a store to keep it.
func offeredRule(env *Env, r trust.Rule, err error) *trust.Rule {
	if err != nil || env.Store == nil || env.mode() == wire.ModePlan {
		return nil
	}
	return &r
}

// offeredDeny is the deny rule a card may offer: none without a store to
// keep it.
func offeredDeny(env *Env, r trust.Rule, err error) *trust.Rule {
	if err != nil || env.Store == nil {
		return nil
	}
	return &r
}

// denied is the decision for a call a saved deny rule refuses.
func denied(r trust.Rule) trust.Decision {
	return trust.Decision{Action: trust.Deny, Reason: "refused by your rule for this workspace: " + r.Describe() +
		" (agentls rules list shows it, agentls rules revoke \"" + r.ID() + "\" forgets it)"}
}

// decideCommand is trust's G3 decision for a run_command in root: it asks
// unless the mode and the classifier (biased to over-flag), or a rule the
// user saved for exactly this command, say otherwise.
func decideCommand(env *Env, root string, argv []string, shell bool) trust.Decision {
	if r, ok := env.Store.CommandDenied(root, argv, shell); ok {
		return denied(r)
	}
	mode := env.mode()
	var saved *trust.Rule
	if mode != wire.ModePlan {
		if r, ok := env.Store.CommandAllowed(root, argv, shell); ok {
			saved = &r
		}
	}
	return trust.DecideCommand(argv, shell, mode, saved)
}

// decideWrite is trust's decision for write_file / edit_file of t, the
// rule its card may offer, and the deny rule.
func decideWrite(env *Env, t target) (trust.Decision, *trust.Rule, *trust.Rule, string) {
	folders := env.Workspace.Folders()
	root := folderOf(folders, t.Real)
	// Named by the file written: a link's name is not what changes.
	rel := t.Real
	if r, err := filepath.Rel(root, t.Real); err == nil {
		rel = r
	}
	dr, derr := trust.DenyWriteRule(rel)
	deny := offeredDeny(env, dr, derr)
	if r, ok := env.Store.WriteDenied(root, rel); ok {
		return denied(r), nil, nil, root
	}
	meta, _ := metadataKind(folders, t.Real)
	var saved, offer *trust.Rule
	if meta == "" {
		if r, ok := env.Store.WriteAllowed(root, rel); ok {
			saved = &r
		}
		r, err := trust.WriteRule(rel)
		offer = offeredRule(env, r, err)
	}
	return trust.DecideWrite(rel, env.mode(), meta, saved), offer, deny, root
}

// gate hands d to the call's gate; only whether the call may go on matters.
func gate(ctx context.Context, call Call, d trust.Decision, card wire.Approval) error {
	_, err := call.Gate(ctx, d, card, Keep{})
	return err
}
