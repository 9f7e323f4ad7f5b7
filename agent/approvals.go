package agent

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentls/agentls/wire"

	"github.com/agentls/agentls/agent/tools"
)

// askOutcome is how an approval ended.
type askOutcome int

const (
	denied askOutcome = iota
	approved
	timedOut
	cancelled
)

func (c *Core) newApprovalID() string { return fmt.Sprintf("a%d", c.approvals.Add(1)) }

// ask puts one approval to the approver. Deny by default: no approver, an
// error, an option that was not offered, a reject option, the approval
// timeout or a cancelled ctx all deny. Nothing is approved because nobody
// could be asked.
func (c *Core) ask(ctx context.Context, a Approval, ap Approver) (optionID string, how askOutcome) {
	if ap == nil {
		return "", denied
	}
	actx, cancel := context.WithTimeout(ctx, c.cfg.Agent.ApprovalTimeout)
	defer cancel()
	type answer struct {
		opt string
		err error
	}
	// The approver runs in its own goroutine so an approver that ignores ctx
	// cannot hold the task past its cancel or timeout; it ends when the
	// approver returns (approvers must honor ctx).
	ch := make(chan answer, 1)
	go func() {
		opt, err := ap.RequestApproval(actx, a)
		ch <- answer{opt, err}
	}()
	var ans answer
	select {
	case ans = <-ch:
	case <-actx.Done():
	}
	switch {
	case ctx.Err() != nil:
		return "", cancelled
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return "", timedOut
	case ans.err != nil:
		c.logf("approval %s: %v (denied)", a.ApprovalID, ans.err)
		return "", denied
	}
	for _, o := range a.Options {
		if o.OptionID == ans.opt && ans.opt != "" {
			if o.Kind == wire.OptionAllowOnce || o.Kind == wire.OptionAllowAlways {
				return o.OptionID, approved
			}
			return o.OptionID, denied
		}
	}
	if ans.opt != "" {
		c.logf("approval %s: unknown option %q (denied)", a.ApprovalID, ans.opt)
	}
	return "", denied
}

// approve is the gate of one tool call: it emits the approval events, marks
// the task awaiting_approval while it waits, and returns the chosen option or
// the error whose text goes to the model.
//
// Approvals are asked one at a time, even when calls run in parallel.
func (r *run) approve(ctx context.Context, c *call, a Approval) (string, error) {
	r.approveMu.Lock()
	defer r.approveMu.Unlock()
	a.ApprovalID = r.core.newApprovalID()
	a.TaskID = r.task.ID
	a.ToolCallID = c.id
	// The card's server (a resource read names one) is the call's while
	// it waits for the answer.
	waiting := c.event(wire.StatusAwaitingApproval)
	waiting.Server = a.Server
	r.emit(waiting)
	r.emit(Event{Type: wire.EventApproval, ApprovalID: a.ApprovalID, State: wire.ApprovalWaiting})
	r.task.setState(wire.TaskAwaitingApproval)
	opt, how := r.core.ask(ctx, a, r.io.Approver)
	r.task.setState(wire.TaskRunning)
	r.emit(Event{Type: wire.EventApproval, ApprovalID: a.ApprovalID, State: wire.ApprovalResolved, OptionID: opt})
	switch how {
	case approved:
		running := c.event(wire.StatusRunning)
		running.Server = a.Server
		r.emit(running)
		return opt, nil
	case timedOut:
		return "", &tools.Denied{Msg: fmt.Sprintf("ERROR: approval timed out after %s: denied", r.core.cfg.Agent.ApprovalTimeout)}
	case cancelled:
		return "", context.Canceled
	}
	return "", &tools.Denied{Msg: "ERROR: denied by the user"}
}
