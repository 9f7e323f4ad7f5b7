package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

// A tool call an MCP server runs as a task (the Tasks extension) and that
// is still working at its call_timeout ends the call with a result saying
// so; the core follows the task on after the model's turn (mcp AwaitTask).
// When it ends, its result goes into the session's transcript at once and
// to the model at the start of the session's next turn. Cancelling the
// task that made the call (agent/cancel) or its session cancels it on the
// server (tasks/cancel). A task followed after its turn can ask nobody: a
// question it asks is declined without a card.

// adoptTask follows task t of call callID of run r after the turn.
func (c *Core) adoptTask(r *run, callID string, t mcp.Task) {
	if c.reg == nil {
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	m := &mcpTask{task: t, owner: r.task.ID, session: r.task.SessionID, callID: callID, cancel: cancel}
	c.bg.mu.Lock()
	if c.bg.running == nil {
		c.bg.running = map[*mcpTask]bool{}
	}
	c.bg.running[m] = true
	c.bg.mu.Unlock()
	c.logf("agent: %s runs %s as task %s, past its call_timeout: followed after the turn", t.Server, t.Tool, t.ID)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer cancel()
		res := c.reg.AwaitTask(ctx, t, mcp.CallListener{})
		c.bg.mu.Lock()
		delete(c.bg.running, m)
		c.bg.mu.Unlock()
		if ctx.Err() != nil {
			return // cancelled (cancelMCPTasks sent tasks/cancel) or agentls is shutting down
		}
		c.taskEnded(m, res)
	}()
}

// taskEnded records the result of a task followed after its turn.
func (c *Core) taskEnded(m *mcpTask, res mcp.Result) {
	how := "finished"
	if res.IsError {
		how = "failed"
	}
	text := trust.Redact(res.Text)
	if len(res.Images) > 0 {
		text += fmt.Sprintf("\n[%d image(s) of the result are not shown after the turn]", len(res.Images))
	}
	note := fmt.Sprintf("The MCP call %s (tool call %s) that was still running as task %s of %s has %s. Its result:\n%s",
		m.task.Tool, m.callID, m.task.ID, m.task.Server, how, text)
	tr := session.OpenTranscript(c.stateDir, m.session)
	tr.Note(strings.ReplaceAll(note, "\n", "\n> "))
	if err := tr.Close(); err != nil {
		c.logf("agent: transcript of %s: %v", m.session, err)
	}
	c.bg.mu.Lock()
	if c.bg.finished == nil {
		c.bg.finished = map[string][]string{}
	}
	c.bg.finished[m.session] = append(c.bg.finished[m.session], note)
	c.bg.mu.Unlock()
}

// taskResults takes what tasks of session id left for the model since its
// last turn: a text block for the turn's prompt message, or none.
func (c *Core) taskResults(id string) []model.Block {
	c.bg.mu.Lock()
	notes := c.bg.finished[id]
	delete(c.bg.finished, id)
	c.bg.mu.Unlock()
	if len(notes) == 0 {
		return nil
	}
	return []model.Block{{Type: "text", Text: "[agentls: since your last turn]\n" + strings.Join(notes, "\n\n")}}
}

// cancelMCPTasks cancels, on their servers too, the tasks followed for
// agent task owner (or, with owner "", for session sess); whether any was.
func (c *Core) cancelMCPTasks(owner, sess string) bool {
	c.bg.mu.Lock()
	var hit []*mcpTask
	for m := range c.bg.running {
		if (owner != "" && m.owner == owner) || (owner == "" && m.session == sess) {
			hit = append(hit, m)
			delete(c.bg.running, m)
		}
	}
	c.bg.mu.Unlock()
	for _, m := range hit {
		m.cancel()
		c.reg.CancelTask(m.task)
		c.logf("agent: cancelled task %s of %s (%s)", m.task.ID, m.task.Server, m.task.Tool)
	}
	return len(hit) > 0
}
