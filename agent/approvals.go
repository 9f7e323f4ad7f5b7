package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
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
	unasked // the approver had nobody to ask (ErrNobodyToAsk)
)

func (c *Core) newApprovalID() string { return fmt.Sprintf("a%d", c.approvals.Add(1)) }

// ask puts one approval to the approver. Deny by default: no approver, an
// error, an option that was not offered, a reject option, the approval
// timeout or a cancelled ctx all deny. Nothing is approved because nobody
// could be asked.
func (c *Core) ask(ctx context.Context, a wire.Approval, ap Approver) (optionID string, how askOutcome) {
	optionID, _, how = c.askForm(ctx, a, ap, false)
	return optionID, how
}

// askForm is ask; with form, through the approver's RequestForm, which
// also returns the content of the form the user filled in.
func (c *Core) askForm(ctx context.Context, a wire.Approval, ap Approver, form bool) (optionID string, content map[string]any, how askOutcome) {
	if ap == nil {
		return "", nil, denied
	}
	fa, _ := ap.(FormApprover)
	form = form && fa != nil
	actx, cancel := context.WithTimeout(ctx, c.cfg.Agent.ApprovalTimeout)
	defer cancel()
	type answer struct {
		opt     string
		content map[string]any
		err     error
	}
	// The approver runs in its own goroutine so an approver that ignores ctx
	// cannot hold the task past its cancel or timeout; it ends when the
	// approver returns (approvers must honor ctx).
	ch := make(chan answer, 1)
	go func() {
		var ans answer
		if form {
			ans.opt, ans.content, ans.err = fa.RequestForm(actx, a)
		} else {
			ans.opt, ans.err = ap.RequestApproval(actx, a)
		}
		ch <- ans
	}()
	var ans answer
	select {
	case ans = <-ch:
	case <-actx.Done():
	}
	switch {
	case ctx.Err() != nil:
		return "", nil, cancelled
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return "", nil, timedOut
	case errors.Is(ans.err, ErrNobodyToAsk):
		return "", nil, unasked
	case ans.err != nil:
		c.logf("approval %s: %v (denied)", a.ApprovalID, ans.err)
		return "", nil, denied
	}
	for _, o := range a.Options {
		if o.OptionID == ans.opt && ans.opt != "" {
			if o.Kind == wire.OptionAllowOnce || o.Kind == wire.OptionAllowAlways {
				return o.OptionID, ans.content, approved
			}
			return o.OptionID, nil, denied
		}
	}
	if ans.opt != "" {
		c.logf("approval %s: unknown option %q (denied)", a.ApprovalID, ans.opt)
	}
	return "", nil, denied
}

// approve is the gate of one tool call: it emits the approval events, marks
// the task awaiting_approval while it waits, and returns the chosen option or
// the error whose text goes to the model.
//
// Approvals are asked one at a time, even when calls run in parallel.
func (r *run) approve(ctx context.Context, c *call, a wire.Approval) (string, error) {
	r.approveMu.Lock()
	defer r.approveMu.Unlock()
	a.ApprovalID = r.core.newApprovalID()
	a.TaskID = r.task.ID
	a.ToolCallID = c.id
	attribute(&a, r.client)
	// The card's server (a resource read names one) is the call's while
	// it waits for the answer.
	waiting := c.event(wire.StatusAwaitingApproval)
	waiting.Server = a.Server
	r.emit(waiting)
	r.emit(wire.Event{Type: wire.EventApproval, ApprovalID: a.ApprovalID, State: wire.ApprovalWaiting})
	r.task.setState(wire.TaskAwaitingApproval)
	opt, how := r.core.ask(ctx, a, r.io.Approver)
	r.task.setState(wire.TaskRunning)
	r.emit(wire.Event{Type: wire.EventApproval, ApprovalID: a.ApprovalID, State: wire.ApprovalResolved, OptionID: opt})
	switch how {
	case approved:
		r.journal.Approved(c.id, c.tool, c.title, c.kind)
		running := c.event(wire.StatusRunning)
		running.Server = a.Server
		r.emit(running)
		return opt, nil
	case timedOut:
		return "", &tools.Denied{Msg: fmt.Sprintf("ERROR: approval timed out after %s: denied", r.core.cfg.Agent.ApprovalTimeout)}
	case cancelled:
		return "", context.Canceled
	case unasked:
		return "", &tools.Denied{Msg: NobodyAskedMessage}
	}
	if optionKind(a, opt) == wire.OptionRejectAlways {
		// The gate that offered it saves the deny rule (it gets opt).
		return opt, &tools.Denied{Msg: "ERROR: denied by the user, who chose to always deny this: the same call will be refused from now on, do not retry it"}
	}
	return "", &tools.Denied{Msg: "ERROR: denied by the user"}
}

// optionKind is the kind of a's option optionID, "" when a has none such.
func optionKind(a wire.Approval, optionID string) wire.OptionKind {
	for _, o := range a.Options {
		if o.OptionID == optionID && optionID != "" {
			return o.Kind
		}
	}
	return ""
}

// NobodyAskedMessage is the tool result of a call refused because nobody
// could be asked: not the user's no, so the model neither reports a
// refusal nor tries another way around the same gate.
const NobodyAskedMessage = "ERROR: not done: this call needs the user's approval and nobody could be asked (agentls runs without a terminal to answer on). Do not retry it or work around it: finish, and say which call needs approval."

// elicit puts an MCP server's question, asked while call c runs, to the
// user: the call is awaiting_approval meanwhile. Declined unless the user
// picked an answer that fits the form (or chose to open the URL, which
// then opens); cancel when the task is cancelled.
func (r *run) elicit(ctx context.Context, c *call, e mcp.Elicitation) mcp.ElicitAnswer {
	ap := r.io.Approver
	fa, _ := ap.(FormApprover)
	opener, _ := ap.(URLOpener)
	a := elicitCard(e, fa != nil && fa.ShowsForms(), opener != nil)
	if len(a.Options) == 1 {
		// Nothing but Decline could be answered here: say so on the call
		// (a progress message) rather than hold the task on a card.
		if c.declined() {
			r.core.logf("agent: %s asked a question this front cannot show (%s): declined", e.Server, e.Mode)
			c.Progress(a.Title + " — declined: this editor cannot show that question")
		}
		return mcp.ElicitAnswer{Action: wire.ElicitDecline}
	}
	r.approveMu.Lock()
	defer r.approveMu.Unlock()
	// Checked under the lock: a server's questions asked at once wait
	// here, and the first one turned down settles the rest.
	if why := c.askable(); why != "" {
		if c.declined() {
			r.core.logf("agent: %s asked again during one call: declined (%s)", e.Server, why)
			c.Progress(a.Title + " — declined: " + why)
		}
		return mcp.ElicitAnswer{Action: wire.ElicitDecline}
	}
	ans := r.askElicitation(ctx, c, e, a, ap, opener)
	if ans.Action != wire.ElicitAccept {
		c.refuse()
	}
	return ans
}

// askElicitation shows elicitation card a of call c and returns the answer.
func (r *run) askElicitation(ctx context.Context, c *call, e mcp.Elicitation, a wire.Approval, ap Approver, opener URLOpener) mcp.ElicitAnswer {
	a.ApprovalID = r.core.newApprovalID()
	a.TaskID = r.task.ID
	a.ToolCallID = c.id
	c.heard(func() { r.emit(c.event(wire.StatusAwaitingApproval)) })
	r.emit(wire.Event{Type: wire.EventApproval, ApprovalID: a.ApprovalID, State: wire.ApprovalWaiting})
	r.task.setState(wire.TaskAwaitingApproval)
	opt, content, how := r.core.askForm(ctx, a, ap, hasOption(a, wire.OptionAccept) && e.Mode == wire.ElicitForm)
	r.task.setState(wire.TaskRunning)
	r.emit(wire.Event{Type: wire.EventApproval, ApprovalID: a.ApprovalID, State: wire.ApprovalResolved, OptionID: opt})
	defer c.heard(func() { r.emit(c.event(wire.StatusRunning)) })
	switch how {
	case cancelled:
		return mcp.ElicitAnswer{Action: wire.ElicitCancel}
	case approved:
	default:
		return mcp.ElicitAnswer{Action: wire.ElicitDecline}
	}
	ans, err := elicitAnswer(e, opt, content)
	if err != nil {
		r.core.logf("agent: the answer to %s's question does not fit it: %v (declined)", e.Server, err)
		return mcp.ElicitAnswer{Action: wire.ElicitDecline}
	}
	if e.Mode == wire.ElicitURL {
		if err := openWebPage(ctx, opener, e.URL); err != nil {
			r.core.logf("agent: opening %s's URL: %v (declined)", e.Server, err)
			return mcp.ElicitAnswer{Action: wire.ElicitDecline}
		}
	}
	return ans
}

func hasOption(a wire.Approval, id string) bool {
	for _, o := range a.Options {
		if o.OptionID == id {
			return true
		}
	}
	return false
}

// attribute makes card a name the outside client asking for it: on its own
// field and at the start of the title every editor shows.
func attribute(card *wire.Approval, client string) {
	if client == "" {
		return
	}
	card.RequestedBy = trust.Visible(client)
	card.Title = card.RequestedBy + " asks: " + card.Title
}
