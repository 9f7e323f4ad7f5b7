package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// holdApprovals answers agent/requestApproval only when release gets an
// optionId, and says on asked when it has been asked.
func holdApprovals(c *testClient, asked chan<- struct{}, release <-chan string) answerFunc {
	return func(method string, params json.RawMessage) (any, error) {
		if method != "agent/requestApproval" {
			return defaultAnswer(method, params)
		}
		asked <- struct{}{}
		select {
		case opt := <-release:
			return map[string]any{"outcome": "selected", "optionId": opt}, nil
		case <-c.stop:
			return map[string]any{"outcome": "cancelled"}, nil
		}
	}
}

type taskRow struct {
	TaskID string `json:"taskId"`
	State  string `json:"state"`
	Prompt string `json:"prompt"`
}

func TestConnectionStaysLiveWhileAnApprovalWaits(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	asked, release := make(chan struct{}, 1), make(chan string, 1)
	c.setAnswer(holdApprovals(c, asked, release))
	c.initialize(e.root, caps(true, true, false))
	doc := openDoc(t, c, e.root, "main.go", "package main\n")
	scriptCommand(e.model, "approved-run")
	res, errc := c.runAsync(map[string]any{"prompt": "run it", "textDocument": map[string]string{"uri": doc}})
	<-asked

	// A request sent during the wait is answered.
	var tasks struct{ Tasks []taskRow }
	c.mustCall("agent/tasks", map[string]any{}, &tasks)
	if len(tasks.Tasks) != 1 || tasks.Tasks[0].State != "awaiting_approval" || tasks.Tasks[0].Prompt != "run it" {
		t.Errorf("agent/tasks during the wait = %+v, want the task awaiting approval", tasks.Tasks)
	}
	var waiting struct{ Approvals []map[string]any }
	c.mustCall("agent/approvals", map[string]any{}, &waiting)
	if len(waiting.Approvals) != 1 || waiting.Approvals[0]["kind"] != "command" {
		t.Errorf("agent/approvals during the wait = %+v, want the command approval", waiting.Approvals)
	}

	// didChange during the wait is applied: the directive it adds is offered.
	c.notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": doc, "version": 2},
		"contentChanges": []any{map[string]any{
			"range": map[string]any{"start": map[string]int{"line": 1, "character": 0}, "end": map[string]int{"line": 1, "character": 0}},
			"text":  "// agent: add tests\n"}},
	})
	var actions []codeAction
	c.mustCall("textDocument/codeAction", map[string]any{
		"textDocument": map[string]string{"uri": doc},
		"range":        map[string]any{"start": map[string]int{"line": 1, "character": 0}, "end": map[string]int{"line": 1, "character": 0}},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions)
	titles := actionTitles(actions)
	// The command's card offers its rule too (allow_always).
	if len(titles) < 5 || !strings.HasPrefix(titles[0], "agentls: Allow once: ") || !strings.HasPrefix(titles[1], "agentls: Always allow in this workspace: ") || !strings.HasPrefix(titles[2], "agentls: Deny: ") ||
		!contains(titles, `agentls: Run "add tests"`) || !contains(titles, "agentls: Cancel task") {
		t.Errorf("code actions during the wait = %q, want approvals first, the new directive and cancel", titles)
	}

	release <- "allow_once"
	r := c.await(res, errc)
	if r.StopReason != "end_turn" {
		t.Errorf("result = %+v", r)
	}
	if got := toolResult(t, e.model); !strings.Contains(got.Content, "approved-run") {
		t.Errorf("tool result = %+v, want the command's output", got)
	}
}

func TestCancelRequestCancelsAgentRun(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.setAnswer(c.never)
	c.initialize(e.root, caps(true, true, false))
	scriptCommand(e.model, "never-run")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		// protocol.Call sends $/cancelRequest when ctx is cancelled.
		errc <- protocol.Call(ctx, c.conn, "agent/run", map[string]any{"prompt": "run it"}, nil)
	}()
	c.waitFor("agent/requestApproval", method("agent/requestApproval"))
	cancel()
	<-errc
	done := c.waitFor("the done event", func(m message) bool {
		return m.Method == "agent/event" && strings.Contains(string(m.Params), `"type":"done"`)
	})
	if !strings.Contains(string(done.Params), `"stopReason":"cancelled"`) {
		t.Errorf("done event = %s, want stopReason cancelled", done.Params)
	}
	// The server withdraws its own question.
	c.waitFor("$/cancelRequest for the approval", method("$/cancelRequest"))
	var tasks struct{ Tasks []taskRow }
	c.mustCall("agent/tasks", map[string]any{}, &tasks)
	if len(tasks.Tasks) != 0 {
		t.Errorf("tasks after cancel = %+v, want none", tasks.Tasks)
	}
}

func TestAgentCancelEndsAWaitingTask(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.setAnswer(c.never)
	c.initialize(e.root, caps(true, false, false))
	scriptCommand(e.model, "never-run")
	res, errc := c.runAsync(map[string]any{"prompt": "run it"})
	c.waitFor("agent/requestApproval", method("agent/requestApproval"))
	var tasks struct{ Tasks []taskRow }
	c.mustCall("agent/tasks", map[string]any{}, &tasks)
	if len(tasks.Tasks) != 1 {
		t.Fatalf("tasks = %+v", tasks.Tasks)
	}
	c.mustCall("agent/cancel", map[string]string{"taskId": tasks.Tasks[0].TaskID}, nil)
	if r := c.await(res, errc); r.StopReason != "cancelled" {
		t.Errorf("result = %+v, want cancelled", r)
	}
	if n := len(e.model.Requests()); n != 1 {
		t.Errorf("the model got %d requests, want 1 (the command never ran)", n)
	}
}

func TestShutdownDeniesWaitingApprovalsAndEndsTasks(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.setAnswer(c.never)
	c.initialize(e.root, caps(true, false, false))
	scriptCommand(e.model, "never-run")
	res, errc := c.runAsync(map[string]any{"prompt": "run it"})
	c.waitFor("agent/requestApproval", method("agent/requestApproval"))
	c.mustCall("shutdown", nil, nil)
	if r := c.await(res, errc); r.StopReason != "cancelled" {
		t.Errorf("result after shutdown = %+v, want cancelled", r)
	}
	c.notify("exit", nil)
	select {
	case code := <-c.code:
		c.code <- code
	case <-time.After(waitLimit):
		t.Fatal("Serve did not return after exit")
	}
}

func actionTitles(actions []codeAction) []string {
	var out []string
	for _, a := range actions {
		out = append(out, a.Title)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
