package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/wire"
)

// sortTasks orders task rows by start time, then id.
func sortTasks(ts []wire.TaskInfo) {
	sort.Slice(ts, func(i, j int) bool {
		if !ts[i].StartedAt.Equal(ts[j].StartedAt) {
			return ts[i].StartedAt.Before(ts[j].StartedAt)
		}
		return ts[i].TaskID < ts[j].TaskID
	})
}

// Echo is how the request is named where it is echoed (task titles,
// progress): the prompt's first line, or the MCP prompt's names.
func (req RunRequest) Echo() string {
	if req.MCPPrompt != nil {
		return PromptTitle(*req.MCPPrompt)
	}
	return tools.FirstLine(req.Prompt, EchoMax)
}

// Start starts a task in the background and returns at once.
func (c *Core) Start(req RunRequest, io TaskIO) *Task {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastTask++
	t := &Task{ID: fmt.Sprintf("t%d", c.lastTask), SessionID: req.SessionID, Prompt: req.Prompt,
		Title: req.Echo(), StartedAt: time.Now(), done: make(chan struct{})}
	t.setState(wire.TaskRunning)
	if t.SessionID == "" {
		t.SessionID = session.NewID()
	}
	fail := func(msg string) *Task {
		t.result = wire.RunResult{TaskID: t.ID, SessionID: t.SessionID, StopReason: "error", Error: msg}
		t.setState("done")
		close(t.done)
		return t
	}
	switch {
	case c.closed:
		return fail("agent: shutting down, no new tasks")
	case session.CheckID(t.SessionID) != nil:
		return fail(session.CheckID(t.SessionID).Error())
	}
	ctx, cancel := context.WithCancelCause(c.ctx)
	t.cancel = func() { cancel(context.Canceled) }
	c.tasks[t.ID] = t
	c.busy()
	_, statErr := os.Stat(c.sessions.Path(t.SessionID))
	started := errors.Is(statErr, fs.ErrNotExist) // this task starts the session
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer cancel(nil)
		res := c.runTask(ctx, t, req, io)
		if started {
			c.retain(time.Now())
		}
		c.mu.Lock()
		delete(c.tasks, t.ID)
		c.idle()
		c.mu.Unlock()
		t.result = res
		t.setState("done")
		close(t.done)
	}()
	return t
}

// Cancel cancels one task; false if unknown or already done.
func (c *Core) Cancel(taskID string) bool {
	c.mu.Lock()
	t, ok := c.tasks[taskID]
	c.mu.Unlock()
	if ok {
		t.cancel()
	}
	// A task that ended may have left MCP tasks running: they go too.
	return c.cancelMCPTasks(taskID, "") || ok
}

// CancelSession cancels every task of a session.
func (c *Core) CancelSession(sessionID string) {
	c.mu.Lock()
	for _, t := range c.tasks {
		if t.SessionID == sessionID {
			t.cancel()
		}
	}
	c.mu.Unlock()
	c.cancelMCPTasks("", sessionID)
}

// Tasks lists the running tasks, oldest first.
func (c *Core) Tasks() []wire.TaskInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]wire.TaskInfo, 0, len(c.tasks))
	for _, t := range c.tasks {
		info := wire.TaskInfo{TaskID: t.ID, SessionID: t.SessionID, State: t.stateName(), Prompt: t.Title, StartedAt: t.StartedAt}
		if u := t.usage.Load(); u != nil {
			info.Usage = *u
		}
		out = append(out, info)
	}
	sortTasks(out)
	return out
}

// NewChat cancels a session's tasks and returns a new empty session's id,
// which keeps the mode and model profile chosen for the old one.
func (c *Core) NewChat(sessionID string) string {
	id := session.NewID()
	if sessionID != "" {
		c.CancelSession(sessionID)
		c.carryControl(sessionID, id)
	}
	return id
}

// Close cancels every task (each ends "cancelled") and waits for them.
func (c *Core) Close() {
	c.mu.Lock()
	c.closed = true
	c.busy() // no release after Close
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
	c.dropLive()
	if c.ownsRegistry && c.reg != nil {
		if err := c.reg.Close(); err != nil {
			c.logf("agentls: closing MCP servers: %v", err)
		}
	}
}
