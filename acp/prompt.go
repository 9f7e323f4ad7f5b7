package acp

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/agentls/agentls/wire"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/jsonrpc"
)

// stopReasons maps how a core task ended to ACP's stop reason. A task
// that failed ("error") is a JSON-RPC error instead.
var stopReasons = map[wire.StopReason]StopReason{
	wire.StopEndTurn:       StopEndTurn,
	wire.StopCancelled:     StopCancelled,
	wire.StopMaxIterations: StopMaxTurnRequests,
	wire.StopMaxTokens:     StopMaxTokens,
	wire.StopRefusal:       StopRefusal,
}

// prompt runs one turn: session/update for everything it does, then the
// stop reason once the last update is out.
func (a *Agent) prompt(ctx context.Context, p promptRequest) (promptResponse, error) {
	s := a.session(p.SessionID)
	if s == nil {
		return promptResponse{}, jsonrpc.Errorf(jsonrpc.ResourceNotFound, "unknown sessionId %q: start one with session/new or session/load (live sessions: %s)", p.SessionID, a.sessionIDs())
	}
	text, err := promptText(p.Prompt)
	if err != nil {
		return promptResponse{}, err
	}
	if cmd, arg, ok := slashCommand(text); ok {
		return s.runCommand(ctx, cmd, arg)
	}
	if ref, problem, ok := s.core.PromptCommand(text); ok {
		return s.runPrompt(ctx, ref, problem)
	}
	return s.runTurn(ctx, agent.RunRequest{Prompt: text})
}

// runTurn runs req as the session's turn (its conversation set here).
func (s *session) runTurn(ctx context.Context, req agent.RunRequest) (promptResponse, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	s.mu.Lock()
	if s.stop != nil {
		s.mu.Unlock()
		return promptResponse{}, jsonrpc.Errorf(jsonrpc.InvalidRequest, "a prompt of this session is still running: wait for its response or send session/cancel")
	}
	s.stop = stop
	coreID := s.coreID
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.stop = nil
		s.mu.Unlock()
	}()
	s.askLaunches(ctx)

	q := newUpdateQueue(s)
	req.SessionID = coreID
	task := s.core.Start(req,
		agent.TaskIO{Approver: s.approver(), Events: q, Workspace: s.files()})
	// session/cancel runs on the read loop before the editor's next message,
	// its "cancelled" answer to the permission asked: it cancels the task
	// itself, so that answer finds the turn cancelled and is not taken for a
	// denial the model is asked about again.
	s.mu.Lock()
	s.stop = func() { stop(); s.core.Cancel(task.ID) }
	s.mu.Unlock()
	select {
	case <-task.Done():
	case <-ctx.Done():
		s.core.Cancel(task.ID)
		<-task.Done()
	}
	q.drain() // every update goes out before the response
	res := task.Result()
	if ctx.Err() != nil && res.StopReason == "error" {
		// Cancelled before the task could start (a launch card was pending).
		res.StopReason = wire.StopCancelled
	}
	if reason, ok := stopReasons[res.StopReason]; ok {
		return promptResponse{StopReason: reason}, nil
	}
	return promptResponse{}, jsonrpc.Errorf(jsonrpc.InternalError, "agentls: the turn failed: %s", res.Error)
}

// promptText joins a prompt's blocks into the task's prompt: text as is,
// an attached file (embedded resource) with its text fenced and named, a
// resource link by its URI. Images and audio are refused: the capabilities
// said we take none.
func promptText(blocks []contentBlock) (string, error) {
	var b strings.Builder
	for i, c := range blocks {
		if i > 0 {
			b.WriteString("\n\n")
		}
		switch c.Type {
		case "text":
			b.WriteString(c.Text)
		case "resource_link":
			fmt.Fprintf(&b, "Attached file: %s", c.URI)
		case "resource":
			if c.Resource == nil || c.Resource.Text == nil {
				return "", jsonrpc.Errorf(jsonrpc.InvalidParams, "an embedded resource without text: agentls takes text resources only (promptCapabilities)")
			}
			fmt.Fprintf(&b, "Attached file %s:\n```\n%s\n```", c.Resource.URI, *c.Resource.Text)
		default:
			return "", jsonrpc.Errorf(jsonrpc.InvalidParams, "a %q content block: agentls takes text, resource_link and resource blocks (promptCapabilities)", c.Type)
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", jsonrpc.Errorf(jsonrpc.InvalidParams, "the prompt is empty: say what the agent should do")
	}
	return b.String(), nil
}

// updateQueue turns a task's events into session/update, in order, on its
// own goroutine, so the agent never waits on the editor reading stdout.
type updateQueue struct {
	s    *session
	tr   *translator
	mu   sync.Mutex
	cond *sync.Cond
	q    []wire.Event
	done bool
	out  chan struct{} // closed when the queue is drained after drain()
}

func newUpdateQueue(s *session) *updateQueue {
	u := &updateQueue{s: s, tr: newTranslator(s.approver()), out: make(chan struct{})}
	u.tr.mode = s.mode()
	u.tr.options = s.configOptions
	u.cond = sync.NewCond(&u.mu)
	go u.run()
	return u
}

// Event queues one event (agent.EventSink).
func (u *updateQueue) Event(e wire.Event) {
	u.s.approver().note(e)
	u.mu.Lock()
	u.q = append(u.q, e)
	u.mu.Unlock()
	u.cond.Signal()
}

func (u *updateQueue) run() {
	defer close(u.out)
	for {
		u.mu.Lock()
		for len(u.q) == 0 && !u.done {
			u.cond.Wait()
		}
		batch := u.q
		u.q = nil
		done := u.done
		u.mu.Unlock()
		for _, e := range batch {
			for _, up := range u.tr.updates(e) {
				u.s.send(up)
			}
		}
		if done && len(batch) == 0 {
			return
		}
	}
}

// drain sends what is queued and ends the queue's goroutine.
func (u *updateQueue) drain() {
	u.mu.Lock()
	u.done = true
	u.mu.Unlock()
	u.cond.Signal()
	<-u.out
}
