package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/agentls/agentls/wire"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
)

// taskSink is a task's agent.EventSink. Event never blocks: events queue
// up and one goroutine sends them in order, after the client has answered
// window/workDoneProgress/create (Helix shows no spinner otherwise).
type taskSink struct {
	s      *Server
	token  string
	prompt string
	events bool // forward agent/event
	prog   bool // send $/progress

	reported  map[string]bool // tool calls already reported (sender goroutine only)
	reasoning bool            // the model is reasoning: reported once, until another event (sender goroutine only)
	mode      wire.Mode       // the session's mode as the title and reports said it (sender goroutine only)

	mu     sync.Mutex
	queue  []sinkItem
	wake   chan struct{}
	closed bool
	done   chan struct{}
}

// sinkItem is an agent event, or the task's final result.
type sinkItem struct {
	ev  *wire.Event
	end *wire.RunResult
}

// createLimit bounds the wait for window/workDoneProgress/create's answer.
const createLimit = 10 * time.Second

// progressValue is one $/progress value. protocol's WorkDoneProgress types
// are not used: its token type marshals only through a pointer.
type progressValue struct {
	Kind        string `json:"kind"`
	Title       string `json:"title,omitempty"`
	Message     string `json:"message,omitempty"`
	Cancellable bool   `json:"cancellable,omitempty"`
}

type progressParams struct {
	Token string        `json:"token"`
	Value progressValue `json:"value"`
}

// newTaskSink makes a task's sink; events queue until its sender is
// started with s.goFn(t.run). Call finish exactly once.
func (s *Server) newTaskSink(token, prompt string, mode wire.Mode) *taskSink {
	s.mu.Lock()
	info := s.client
	s.mu.Unlock()
	return &taskSink{s: s, token: token, prompt: prompt, mode: mode, events: info.events, prog: info.workDoneProgress,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Event queues one agent event.
func (t *taskSink) Event(e wire.Event) {
	t.push(sinkItem{ev: &e})
}

// finish queues the task's end and stops the sender after it.
func (t *taskSink) finish(r wire.RunResult) {
	t.push(sinkItem{end: &r})
}

func (t *taskSink) push(it sinkItem) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.queue = append(t.queue, it)
	if it.end != nil {
		t.closed = true
	}
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

func (t *taskSink) run() {
	defer close(t.done)
	s := t.s
	if t.prog {
		// The token may be used only once the client answered; a client
		// that fails create gets no progress for this task.
		// Bounded: a client that never answers must not hold back the
		// task's events.
		ctx, cancel := context.WithTimeout(s.ctx, createLimit)
		err := s.conn.Call(ctx, protocol.MethodWorkDoneProgressCreate, map[string]string{"token": t.token}, nil)
		cancel()
		if err != nil {
			t.prog = false
		} else {
			// The title is the status line of a client that shows only
			// progress (Helix): it names a mode other than ask.
			title := "agentls"
			if t.mode != "" && t.mode != wire.ModeAsk {
				title += " [" + string(t.mode) + "]"
			}
			t.progress(progressValue{Kind: "begin", Title: title, Message: firstLine(t.prompt), Cancellable: true})
		}
	}
	for {
		t.mu.Lock()
		items := t.queue
		t.queue = nil
		t.mu.Unlock()
		for _, it := range items {
			if it.end != nil {
				t.progress(progressValue{Kind: "end", Message: resultLine(*it.end)})
				return
			}
			t.send(*it.ev)
		}
		select {
		case <-t.wake:
		case <-s.ctx.Done():
			// Shutdown: the task's end is still coming (Core.Close waits
			// for it); keep draining until it does.
			select {
			case <-t.wake:
			case <-s.conn.Done():
				return
			}
		}
	}
}

func (t *taskSink) send(e wire.Event) {
	if t.events {
		t.s.notify(wire.EventNotification.Name, t.eventWire(e))
	}
	// The model started reasoning: one report, so a client showing only
	// progress (Helix) sees why nothing else comes for a while.
	if e.Type == wire.EventReasoning {
		if !t.reasoning {
			t.reasoning = true
			t.progress(progressValue{Kind: "report", Message: "reasoning"})
		}
		return
	}
	t.reasoning = false
	if e.Type == wire.EventStatus && e.Mode != "" && e.Mode != t.mode {
		t.mode = e.Mode // an accepted plan: the session is in ask mode now
		t.progress(progressValue{Kind: "report", Message: "mode: " + string(e.Mode)})
		return
	}
	// A notice (a turn_end hook's output, a compaction, a retry), for a
	// client without agent/event (Helix): on its status line, in its log.
	if e.Type == wire.EventStatus && e.Message != "" && !t.events {
		t.progress(progressValue{Kind: "report", Message: e.Message})
		return
	}
	// A call's progress (an MCP server's notifications/progress).
	if t.prog && e.Type == "tool_call" && e.Message != "" {
		t.progress(progressValue{Kind: "report", Message: e.Tool + ": " + e.Message})
		return
	}
	// One report per tool call, at its first event.
	if t.prog && e.Type == wire.EventToolCall && !t.reported[e.ToolCallID] {
		if t.reported == nil {
			t.reported = map[string]bool{}
		}
		t.reported[e.ToolCallID] = true
		t.progress(progressValue{Kind: "report", Message: "calling " + e.Tool})
	}
}

func (t *taskSink) progress(v progressValue) {
	if t.prog {
		t.s.notify(protocol.MethodProgress, progressParams{Token: t.token, Value: v})
	}
}

// resultLine is a task's result in one line.
func resultLine(r wire.RunResult) string {
	switch r.StopReason {
	case wire.StopEndTurn:
		if line := firstLine(r.Text); line != "" {
			return line
		}
		return "done"
	case wire.StopError:
		return "error: " + firstLine(r.Error)
	case "":
		return "ended"
	}
	if r.Error != "" {
		return string(r.StopReason) + ": " + firstLine(r.Error)
	}
	return string(r.StopReason)
}

// startTask starts a task with this connection as its front end and
// returns it with a channel closed once its progress end has been sent.
func (s *Server) startTask(req agent.RunRequest, line int) (*agent.Task, <-chan struct{}, error) {
	core, err := s.ensureCore()
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	s.tokenSeq++
	token := fmt.Sprintf("agentls/task/%d", s.tokenSeq)
	s.mu.Unlock()
	sink := s.newTaskSink(token, req.Echo(), core.Mode(req.SessionID))
	ap := s.approver(req.Document)
	ap.line = line
	s.mu.Lock()
	apps := s.client.apps
	s.mu.Unlock()
	task := core.Start(req, agent.TaskIO{Approver: ap, Events: sink, Workspace: &workspace{s: s}, ShowsApps: apps})
	s.mu.Lock()
	s.progressTasks[token] = task.ID
	s.mu.Unlock()
	// The sender starts only now: once the editor sees "begin" it may press
	// cancel, and the token must already lead to the task.
	s.goFn(sink.run)
	s.goFn(func() {
		defer func() {
			s.mu.Lock()
			delete(s.progressTasks, token)
			s.mu.Unlock()
		}()
		select {
		case <-task.Done():
			s.dropDirective(core, req, task)
			sink.finish(task.Result())
		case <-s.conn.Done():
			<-task.Done() // Core.Close (from Serve) ends it
			sink.finish(task.Result())
		}
	})
	return task, sink.done, nil
}

// workDoneProgressCancel is the editor's cancel button on a task's
// progress: it cancels the task.
// workDoneProgressCancelParams are window/workDoneProgress/cancel's.
type workDoneProgressCancelParams struct {
	Token json.RawMessage `json:"token"`
}

func (s *Server) workDoneProgressCancel(p workDoneProgressCancelParams) {
	var token string
	if json.Unmarshal(p.Token, &token) != nil {
		return // our tokens are strings
	}
	s.mu.Lock()
	taskID, ok := s.progressTasks[token]
	core := s.core
	s.mu.Unlock()
	if ok && core != nil {
		core.Cancel(taskID)
	}
}
