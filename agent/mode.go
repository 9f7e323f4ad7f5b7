package agent

import (
	"fmt"

	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/tools"
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

// SetMode sets a session's mode, or with sessionID "", the mode of every
// session not set since (new ones included). A running turn of the session
// takes it from its next tool call. The front that sets it may be any of
// the user's: a mode is the user's choice, which no config of a repository
// reaches. A session's mode is saved with it.
func (c *Core) SetMode(sessionID string, m wire.Mode) error {
	if _, err := wire.ParseMode(string(m)); err != nil {
		return err
	}
	return c.choose(sessionID, func() { c.mode = m }, func(ctl *session.Control) { ctl.Mode = m })
}

// choose records what the user chose: for a session (set, then saved
// with it), or with sessionID "" for every session not set since (all).
// Both run with c.mu held.
func (c *Core) choose(sessionID string, all func(), set func(*session.Control)) error {
	if sessionID != "" {
		if err := session.CheckID(sessionID); err != nil {
			return err
		}
	}
	c.mu.Lock()
	if sessionID == "" {
		all()
		c.mu.Unlock()
		return nil
	}
	set(c.control(sessionID))
	c.mu.Unlock()
	c.saveControl(sessionID)
	return nil
}

// mode is the mode of the run's session now.
func (r *run) mode() wire.Mode { return r.core.Mode(r.task.SessionID) }

// setMode changes the run's session's mode during the turn and says so
// (a status event carrying the mode).
func (r *run) setMode(m wire.Mode, why string) {
	if err := r.core.SetMode(r.task.SessionID, m); err != nil {
		r.core.logf("agent: %v", err)
		return
	}
	msg := fmt.Sprintf("mode: %s (%s)", m, why)
	r.tr.Note(msg)
	r.emitStatus(msg)
}

// planRefuses says why plan mode refuses a call of tool before it runs
// ("" when the tool is on plan mode's closed list). Plan mode lets a call
// run only when it cannot change anything: a tool not on the list below
// never runs, whatever it is, so a tool added later is refused until it is
// put here.
func planRefuses(tool string, builtin bool) string {
	switch {
	case !builtin:
		return "" // an MCP tool: its gate decides (planAllows)
	case planReadTools[tool]:
		return ""
	}
	return "plan mode is read-only: " + tool + " is not one of the tools that cannot change anything (reads, searches, run_command of a read-only command); write the plan with propose_plan instead"
}

// planReadTools are the built-ins plan mode may run: each only reads (or,
// run_command and the MCP tools, is held to planAllows at its gate).
var planReadTools = map[string]bool{
	"read_file": true, "list_directory": true, "find_files": true, "search_text": true,
	"search_tools": true, "list_mcp_resources": true, "read_mcp_resource": true,
	"run_command": true, tools.ProposePlanName: true,
	// What only an outside MCP client calls (external.go): reads too.
	tools.DocumentToolName: true, SessionsToolName: true, TranscriptToolName: true,
}

// planAllows is plan mode's gate: what may go on. A command or an MCP tool
// goes on only when its decision allows it and vouches that it changes
// nothing (a command the kernel confines, a tool the policy allows and its
// server marks read-only): asking is not enough, since an approved call
// could write. The read tools may ask (a secret file's card), and so may
// propose_plan (its card is the plan).
func planAllows(tool string, card wire.Approval, readOnly, allowed bool) bool {
	switch {
	case allowed && readOnly:
		return true
	case card.Kind == wire.ApprovalRead && tool != "run_command" && planReadTools[tool]:
		return true // a read tool's card before it reads a secret file
	case card.Kind == wire.ApprovalPlan && tool == tools.ProposePlanName:
		return true
	case tool == "list_mcp_resources" || tool == "read_mcp_resource":
		return true // reading a server's data, asked or allowed by its policy
	}
	return false
}
