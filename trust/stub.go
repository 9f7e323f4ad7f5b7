package trust

// STUB: the contract other packages compile against. The trust owner replaces
// the bodies; the signatures may grow but should not change.

import (
	"github.com/agentls/agentls/config"
)

// ShellQuote renders argv so it could be pasted into a POSIX shell.
func ShellQuote(argv []string) string { return "" }

// LaunchCard is the literal text of a launch approval for a server: the
// quoted argv, every env pair as written, the cwd. Never summarized.
func LaunchCard(s config.Server) (title, detail string) { return "", "" }
