package agent

import (
	"fmt"

	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/wire"
)

// The names of the two tools only outside clients get
// (external_sessions.go); plan mode lets both run (planReadTools).
const (
	SessionsToolName   = "agentls_sessions"
	TranscriptToolName = "agentls_transcript"
)

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
		// Its server's readOnlyHint is the server's claim, and a claim
		// never loosens anything.
		return "plan mode is read-only: " + tool + " is an MCP server's tool, and plan mode runs none, whatever its server says it does or the policy allows; write it into the plan with propose_plan instead"
	case planReadTools[tool]:
		return ""
	}
	return "plan mode is read-only: " + tool + " is not one of the tools that cannot change anything (reads, searches, run_command of a read-only command); write the plan with propose_plan instead"
}

// planReadTools are the built-ins plan mode may run: each only reads (or,
// run_command, is held to planAllows at its gate).
var planReadTools = map[string]bool{
	"read_file": true, "list_directory": true, "find_files": true, "search_text": true,
	"search_tools": true, "list_mcp_resources": true, "read_mcp_resource": true,
	"run_command": true, tools.ProposePlanName: true,
	// What only an outside MCP client calls (external.go): reads too.
	tools.DocumentToolName: true, SessionsToolName: true, TranscriptToolName: true,
}

// planAllows is plan mode's gate: what may go on. A command goes on only
// when its decision allows it and vouches that it changes nothing (one the
// kernel confines): asking is not enough, since an approved call could
// write. No MCP tool goes on: its server's readOnlyHint is a claim, and a
// server's claim never loosens anything, whatever the policy allows. The
// read tools may ask (a secret file's card), and so may propose_plan (its
// card is the plan).
func planAllows(tool string, card wire.Approval, readOnly, allowed bool) bool {
	switch {
	case allowed && readOnly && tool == "run_command":
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
