package agent

import (
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/wire"
)

// A session's control is what the user steers of it besides its history:
// its mode and its model profile (session.Control), each "" until chosen
// for it, when it follows what new sessions take. It is saved beside the
// session whenever a front sets either, and read back the first time this
// process meets the session, so a resumed session keeps them.

// control is what was chosen for a session, read on first use from what
// was saved for it; c.mu is held.
func (c *Core) control(sessionID string) *session.Control {
	if c.controls == nil {
		c.controls = map[string]*session.Control{}
	}
	s := c.controls[sessionID]
	if s != nil {
		return s
	}
	s = &session.Control{}
	if session.CheckID(sessionID) != nil {
		// Not a stored session's name: nothing to read (and never a path).
	} else if saved, ok, err := c.sessions.LoadControl(sessionID); err != nil {
		c.logf("agent: %v", err)
	} else if ok {
		if _, err := wire.ParseMode(string(saved.Mode)); saved.Mode != "" && err == nil {
			s.Mode = saved.Mode
		}
		if _, known := c.cfg.Profile(saved.Profile); saved.Profile != "" && known {
			s.Profile = saved.Profile
		} else if saved.Profile != "" {
			c.logf("agent: session %s was on the model profile %q, which the config no longer declares: it continues on %q", sessionID, saved.Profile, c.defaultProfile())
		}
	}
	c.controls[sessionID] = s
	return s
}

// saveControl writes what was chosen for a session, so that a later
// agentls resuming it keeps it. c.mu is not held.
func (c *Core) saveControl(sessionID string) {
	c.saveMu.Lock()
	defer c.saveMu.Unlock()
	c.mu.Lock()
	saved := *c.control(sessionID)
	c.mu.Unlock()
	if err := c.sessions.SaveControl(sessionID, saved); err != nil {
		c.logf("agent: %v (a restart would forget it)", err)
	}
}

// carryControl gives a new session what was chosen for the one it
// replaces (a front's "new chat"): the user's mode and model stay.
func (c *Core) carryControl(from, to string) {
	if session.CheckID(from) != nil {
		return
	}
	c.mu.Lock()
	chosen := *c.control(from)
	c.controls[to] = &chosen
	c.mu.Unlock()
	if chosen != (session.Control{}) {
		c.saveControl(to)
	}
}

// defaultProfile is the profile of a session nobody chose one for: the
// one the last SetModel without a session chose, else [model]; c.mu is
// held.
func (c *Core) defaultProfile() string {
	return config.ProfileOrDefault(c.profileName)
}

// defaultMode is the mode of a session nobody set one for: the one the
// last SetMode without a session chose, else [agent] mode; c.mu is held.
func (c *Core) defaultMode() wire.Mode {
	switch {
	case c.mode != "":
		return c.mode
	case c.cfg.Agent.Mode != "":
		return c.cfg.Agent.Mode
	case c.cfg.Agent.Autopilot:
		return wire.ModeAutopilot // a Config built by hand, as config spells it
	}
	return wire.ModeAsk
}

// Mode is a session's mode now; "" is the mode new sessions start in.
func (c *Core) Mode(sessionID string) wire.Mode {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sessionID == "" {
		return c.defaultMode()
	}
	if m := c.control(sessionID).Mode; m != "" {
		return m
	}
	return c.defaultMode()
}
