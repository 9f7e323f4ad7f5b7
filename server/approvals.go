package server

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/jsonrpc"
	"github.com/agentls/agentls/wire"
)

// pendingApproval is one approval waiting for an answer.
type pendingApproval struct {
	a          wire.Approval
	seq        int
	uri        string              // where the code-action-card diagnostic goes ("" = nowhere)
	line       int                 // its line
	viaActions bool                // shown as diagnostic + code actions
	answer     chan approvalAnswer // buffered: the chosen optionId ("" denies) and a form's content
}

// approvalAnswer is what the user chose, and for an elicitation card
// answered by the client's own UI the form they filled in.
type approvalAnswer struct {
	optionID string
	content  map[string]any
}

// approvals are the waiting approvals of this connection and the state of
// the path choice.
type approvals struct {
	s       *Server
	mu      sync.Mutex
	pending map[string]*pendingApproval
	seq     int
	closed  bool
	// noShowMessageRequest is set once the client answered
	// window/showMessageRequest with -32601 (released Helix): from then on
	// approvals go straight to the code-action card.
	noShowMessageRequest bool
}

func newApprovals(s *Server) *approvals {
	return &approvals{s: s, pending: map[string]*pendingApproval{}}
}

// taskApprover is the agent.Approver of one task (or of a launch request,
// with no document): it knows where a code-action-card diagnostic belongs.
type taskApprover struct {
	s    *Server
	path string // the task's document, or ""
	line int
}

// approver returns the Approver for a task whose document is path.
func (s *Server) approver(path string) *taskApprover {
	return &taskApprover{s: s, path: path}
}

// RequestApproval asks the user through the first path the client
// supports. Every way of not getting an answer is a denial: a dismissed
// card, null, an error, a timeout, a cancelled task, shutdown, connection
// loss.
func (t *taskApprover) RequestApproval(ctx context.Context, a wire.Approval) (string, error) {
	opt, _, err := t.s.approvals.ask(ctx, t, a, false)
	return opt, err
}

// ShowsForms reports whether the client shows an elicitation's form itself:
// it answers agent/requestApproval and announced experimental.agentls.forms.
func (t *taskApprover) ShowsForms() bool {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	return t.s.client.approvals && t.s.client.forms
}

// RequestForm is RequestApproval for an elicitation card: a client that
// shows forms returns the content the user entered.
func (t *taskApprover) RequestForm(ctx context.Context, a wire.Approval) (string, map[string]any, error) {
	return t.s.approvals.ask(ctx, t, a, t.ShowsForms())
}

// OpenURL sends the user to u through the editor (server.go's openURL).
func (t *taskApprover) OpenURL(ctx context.Context, u string) error { return t.s.openURL(ctx, u) }

// noPathReason says why a client with no approval path is never asked.
const noPathReason = "this editor cannot be asked (it announced none of experimental.agentls.approvals, " +
	"window.showMessage, textDocument.codeAction)"

// errDenied is returned with an empty optionId when nobody said yes.
var errDenied = errors.New("approval denied")

func (ap *approvals) ask(ctx context.Context, t *taskApprover, a wire.Approval, form bool) (string, map[string]any, error) {
	s := ap.s
	s.mu.Lock()
	info, state := s.client, s.state
	s.mu.Unlock()
	if state != initialized || s.ctx == nil {
		// Nothing is ever approved because nobody could be asked.
		return "", nil, fmt.Errorf("%w: no client to ask", errDenied)
	}
	if !info.approvals && !info.showMessageReq && !info.codeActions {
		// No path at all: waiting out the timeout would only hang the task.
		return "", nil, fmt.Errorf("%w: %s", errDenied, noPathReason)
	}

	ap.mu.Lock()
	if ap.closed {
		ap.mu.Unlock()
		return "", nil, fmt.Errorf("%w: agentls is shutting down", errDenied)
	}
	ap.seq++
	if a.ApprovalID == "" {
		a.ApprovalID = fmt.Sprintf("lsp%d", ap.seq)
	}
	p := &pendingApproval{a: a, seq: ap.seq, answer: make(chan approvalAnswer, 1), line: t.line}
	p.uri = s.diagnosticURI(t.path)
	ap.pending[a.ApprovalID] = p
	skipMessageRequest := ap.noShowMessageRequest
	ap.mu.Unlock()

	waitCtx, cancel := mergeContexts(ctx, s.ctx)
	defer cancel()
	defer ap.remove(p)

	switch {
	case info.approvals:
		s.goFn(func() {
			opt, content, err := ap.viaRequestApproval(waitCtx, a)
			if !form {
				content = nil
			}
			ap.answerFrom(p, opt, content, err)
		})
	case info.showMessageReq && !skipMessageRequest:
		s.goFn(func() {
			opt, err := ap.viaShowMessageRequest(waitCtx, a)
			if isMethodNotFound(err) {
				ap.mu.Lock()
				ap.noShowMessageRequest = true
				ap.mu.Unlock()
				if !info.codeActions {
					ap.deliver(p, "")
					return
				}
				ap.viaCodeActions(p)
				return
			}
			ap.answerFrom(p, opt, nil, err)
		})
	default:
		ap.viaCodeActions(p)
	}

	select {
	case ans := <-p.answer:
		if ans.optionID == "" {
			return "", nil, errDenied
		}
		return ans.optionID, ans.content, nil
	case <-waitCtx.Done():
		// The core bounds every approval by [agent] approval_timeout (ctx's
		// deadline); this front applies no second timeout.
		if errors.Is(waitCtx.Err(), context.DeadlineExceeded) {
			return "", nil, fmt.Errorf("%w: no answer within approval_timeout", errDenied)
		}
		return "", nil, fmt.Errorf("%w: %v", errDenied, waitCtx.Err())
	}
}

// answerFrom delivers a client's answer; an error denies.
func (ap *approvals) answerFrom(p *pendingApproval, optionID string, content map[string]any, err error) {
	if err != nil {
		if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			ap.s.logMessage(logWarning, "agentls: approval "+p.a.ApprovalID+" denied: the client answered with an error: "+err.Error())
		}
		optionID, content = "", nil
	}
	ap.deliverContent(p, optionID, content)
}

// deliver sends the answer once; later answers are ignored.
func (ap *approvals) deliver(p *pendingApproval, optionID string) {
	ap.deliverContent(p, optionID, nil)
}

// deliverContent is deliver with a form's content.
func (ap *approvals) deliverContent(p *pendingApproval, optionID string, content map[string]any) {
	if optionID != "" && !hasOption(p.a, optionID) {
		ap.s.logMessage(logWarning, fmt.Sprintf("agentls: approval %s denied: unknown optionId %q", p.a.ApprovalID, optionID))
		optionID, content = "", nil
	}
	select {
	case p.answer <- approvalAnswer{optionID, content}:
	default:
	}
}

func hasOption(a wire.Approval, optionID string) bool {
	for _, o := range a.Options {
		if o.OptionID == optionID {
			return true
		}
	}
	return false
}

// remove forgets an approval and clears its diagnostic.
func (ap *approvals) remove(p *pendingApproval) {
	ap.mu.Lock()
	delete(ap.pending, p.a.ApprovalID)
	wasActions, uri := p.viaActions, p.uri
	ap.mu.Unlock()
	if wasActions && uri != "" {
		ap.publish(uri)
	}
}

// resolve answers a waiting approval (agent/resolveApproval, agentls.approve,
// agentls.deny). An empty approvalID means the oldest waiting one.
func (ap *approvals) resolve(approvalID, optionID string) error {
	ap.mu.Lock()
	var p *pendingApproval
	if approvalID == "" {
		for _, q := range ap.pending {
			if p == nil || q.seq < p.seq {
				p = q
			}
		}
	} else {
		p = ap.pending[approvalID]
	}
	ap.mu.Unlock()
	if p == nil {
		if approvalID == "" {
			return jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: no approval is waiting")
		}
		return jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: no approval %q is waiting (see agent/approvals)", approvalID)
	}
	if optionID != "" && !hasOption(p.a, optionID) {
		var ids []string
		for _, o := range p.a.Options {
			ids = append(ids, o.OptionID)
		}
		return jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: approval %s has no option %q (expected one of %s)",
			p.a.ApprovalID, optionID, strings.Join(ids, ", "))
	}
	ap.deliver(p, optionID)
	return nil
}

// list returns the waiting approvals, oldest first.
func (ap *approvals) list() []wire.Approval {
	ap.mu.Lock()
	defer ap.mu.Unlock()
	ps := make([]*pendingApproval, 0, len(ap.pending))
	for _, p := range ap.pending {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].seq < ps[j].seq })
	out := make([]wire.Approval, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.a)
	}
	return out
}

// denyAll denies every waiting approval and refuses new ones (shutdown).
func (ap *approvals) denyAll() {
	ap.mu.Lock()
	ap.closed = true
	ps := make([]*pendingApproval, 0, len(ap.pending))
	for _, p := range ap.pending {
		ps = append(ps, p)
	}
	ap.mu.Unlock()
	for _, p := range ps {
		ap.deliver(p, "")
	}
}

func (s *Server) agentApprovals(context.Context, wire.NoParams) (wire.ApprovalsResult, error) {
	res := wire.ApprovalsResult{Approvals: []wireApproval{}}
	for _, a := range s.approvals.list() {
		res.Approvals = append(res.Approvals, toWire(a))
	}
	return res, nil
}

func (s *Server) agentResolveApproval(_ context.Context, p wire.ResolveApprovalParams) (wire.Null, error) {
	if p.ApprovalID == "" {
		return wire.Null{}, badParams("approvalId is missing")
	}
	return wire.Null{}, s.approvals.resolve(p.ApprovalID, p.OptionID)
}
