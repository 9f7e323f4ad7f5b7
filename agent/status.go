package agent

import (
	"os"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/wire"
)

// Status is the model the next turn talks to, as the config resolves it
// (no request is made), and the mode the gates of sessionID decide in (""
// : the mode new sessions start in).
func (c *Core) Status(sessionID string) wire.StatusResult {
	var st wire.StatusResult
	if r, err := model.Resolve(c.cfg.Model, os.Getenv); err != nil {
		st.Model.Error = err.Error()
	} else {
		st.Model.Provider, st.Model.Name = r.Provider, r.Name
	}
	st.Mode = c.Mode(sessionID)
	return st
}
