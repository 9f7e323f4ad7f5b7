// Package trust decides what may run: launch fingerprints and the trust store
// (G1), the tool-call policy (G2, G3), the run_command classifier, and secret
// redaction (G4). Decisions are pure functions; the store is the only state.
// The code that decides a call is the same code that fills the policy column
// of the server list, so the two can never disagree. It never starts a process.
// The gates G1-G4 are defined in docs/security.md.
package trust

import "github.com/agentls/agentls/wire"

// Action is a policy outcome, spelled as the server list shows it.
type Action = wire.Policy

// The three outcomes of a policy decision.
const (
	Allow = wire.PolicyAllow
	Ask   = wire.PolicyAsk
	Deny  = wire.PolicyDeny
)

// Decision is a policy outcome with a reason a person can read.
type Decision struct {
	Action Action
	Reason string
	// ReadOnly: an Allow for a command that cannot change anything (one
	// the kernel will confine). Plan mode's gate runs no other command; no
	// MCP tool's decision is ever ReadOnly, whatever its server claims.
	ReadOnly bool
	// Rule is the saved rule behind an Allow (rules.go), nil when none: the
	// call runs as one the user approved on a card.
	Rule *Rule
}

// LaunchState is the trust state of a workspace server's launch fingerprint.
type LaunchState string

// Launch states; NeedsApproval and ApprovalStale match mcp's state names.
const (
	Trusted       LaunchState = "trusted"
	NeedsApproval LaunchState = "needs_approval"
	ApprovalStale LaunchState = "approval_stale"
)

// ToolInfo is what the call policy needs to know about a tool.
type ToolInfo struct {
	Name            string // namespaced name, as the model sees it
	Server          string // config name of the tool's server; "" skips the check that an allow rule names it
	Builtin         bool   // an agentls built-in tool, not from an MCP server
	DestructiveHint *bool
	ReadOnlyHint    bool
	DefinitionHash  string // sha256 of description + input schema + annotations
}
