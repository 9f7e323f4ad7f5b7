package trust

// STUB: the contract other packages compile against. The trust owner replaces
// the bodies; the signatures may grow but should not change.

import (
	"errors"

	"github.com/agentls/agentls/config"
)

// Store is the persisted trust state: launch approvals per workspace root and
// "always allow" tool decisions bound to a tool definition hash.
type Store struct{ path string }

// OpenStore opens (without creating) the store at path.
func OpenStore(path string) *Store { return &Store{path: path} }

// LaunchState says whether this server's current fingerprint is approved.
func (s *Store) LaunchState(root, name, fingerprint string) (LaunchState, error) {
	return NeedsApproval, errors.New("unimplemented")
}

// ApproveLaunch records consent for exactly this fingerprint.
func (s *Store) ApproveLaunch(root, name, fingerprint string) error {
	return errors.New("unimplemented")
}

// Revoke forgets one server's launch approval; it never kills anything.
func (s *Store) Revoke(root, name string) error { return errors.New("unimplemented") }

// RevokeAll forgets every launch approval of a workspace; returns the names.
func (s *Store) RevokeAll(root string) ([]string, error) { return nil, errors.New("unimplemented") }

// AllowAlways stores "always allow" for a tool bound to its definition hash.
func (s *Store) AllowAlways(tool, definitionHash string) error { return errors.New("unimplemented") }

// IsAlwaysAllowed reports whether the tool was always-allowed with exactly this definition.
func (s *Store) IsAlwaysAllowed(tool, definitionHash string) bool { return false }

// Policy decides tool calls from the config's rules and the store.
type Policy struct {
	Rules     []config.PolicyRule
	Store     *Store // may be nil: nothing always-allowed
	Autopilot bool
}

// ClassifyCall decides one MCP tool call: allow, ask or deny, with a reason.
func (p *Policy) ClassifyCall(t ToolInfo) Decision {
	return Decision{Action: Ask, Reason: "unimplemented"}
}

// CommandVerdict is the classifier's view of a run_command.
type CommandVerdict struct {
	Safe    bool
	Reasons []string // why it was flagged
}

// ClassifyCommand inspects argv (or, with shell, a shell string in argv[0]).
// Biased to over-flag.
func ClassifyCommand(argv []string, shell bool) CommandVerdict {
	return CommandVerdict{Reasons: []string{"unimplemented"}}
}

// Redact replaces secrets in free text.
func Redact(s string) string { return s }

// RedactJSON replaces secrets in a JSON document (by key name and by value shape).
func RedactJSON(raw []byte) []byte { return raw }

// DefaultStorePath is config.StateDir()/trust.json.
func DefaultStorePath() string { return "" }

// ShellQuote renders argv so it could be pasted into a POSIX shell.
func ShellQuote(argv []string) string { return "" }

// LaunchCard is the literal text of a launch approval for a server: the
// quoted argv, every env pair as written, the cwd. Never summarized.
func LaunchCard(s config.Server) (title, detail string) { return "", "" }
