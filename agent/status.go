package agent

import (
	"github.com/agentls/agentls/wire"
)

// Status is the model sessionID's next turn talks to, as the config
// resolves it (no request is made), the mode its gates decide in (""
// : what new sessions start in) and the profiles it may switch to.
func (c *Core) Status(sessionID string) wire.StatusResult {
	return wire.StatusResult{Model: c.ModelOf(sessionID), Mode: c.Mode(sessionID), Profiles: c.Models()}
}
