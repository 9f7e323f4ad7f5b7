package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

func longCall(args string) modeltest.Turn {
	return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "v2__long", Input: args}}}
}

// toolCallEvent is the part of an agent/event tool_call these tests read.
type toolCallEvent struct {
	Type, TaskID, ToolCallID, Status, Message string
}

func toolCallEvents(c *testClient) []toolCallEvent {
	var out []toolCallEvent
	for _, m := range c.messages("agent/event") {
		var e toolCallEvent
		json.Unmarshal(m.Params, &e)
		if e.Type == "tool_call" {
			out = append(out, e)
		}
	}
	return out
}

// TestATaskOverLSP: a call a real 2026-07-28 server runs as a task is
// running in the editor with the task's status as its progress (agent/event
// tool_call, status running, the server's statusMessage); its result is
// the tool result. A second one, still working, is cancelled with
// agent/cancel: the server gets tasks/cancel for it.
func TestATaskOverLSP(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "requests.log")
	e := newEnv(t, testenv.MCPv2ServerConfig(t, log))
	c := e.start(t)
	c.initialize(e.root, caps(false, true, false))
	c.waitState("v2", "connected")

	e.model.Script(longCall(`{"steps":2}`), modeltest.Turn{Text: "ran"})
	if r := c.await(c.runAsync(map[string]any{"prompt": "run it"})); r.StopReason != "end_turn" {
		t.Fatalf("result %+v", r)
	}
	if got := toolResult(t, e.model); got.Content != "finished 2 steps" {
		t.Fatalf("tool result %+v", got)
	}
	progress := 0
	for _, ev := range toolCallEvents(c) {
		if ev.Status == "running" && ev.Message != "" {
			if ev.Message != "started" && ev.Message != "done" && !strings.HasPrefix(ev.Message, "step ") {
				t.Errorf("progress %q is not the task's status", ev.Message)
			}
			progress++
		}
	}
	if progress == 0 {
		t.Errorf("no running tool_call with the task's status: %+v", toolCallEvents(c))
	}

	e.model.Script(longCall(`{"hold":"`+filepath.Join(dir, "never")+`"}`), modeltest.Turn{Text: "never"})
	res, errc := c.runAsync(map[string]any{"prompt": "run a long one"})
	m := c.waitFor("the task's status", func(m message) bool {
		var e toolCallEvent
		json.Unmarshal(m.Params, &e)
		return m.Method == "agent/event" && e.Type == "tool_call" && e.Status == "running" && strings.HasPrefix(e.Message, "waiting for ")
	})
	var ev toolCallEvent
	json.Unmarshal(m.Params, &ev)
	var out any
	c.mustCall("agent/cancel", map[string]string{"taskId": ev.TaskID}, &out)
	if r := c.await(res, errc); r.StopReason != "cancelled" {
		t.Fatalf("result %+v, want cancelled", r)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "tasks/cancel t-2\n") {
		t.Errorf("no tasks/cancel reached the server:\n%s", b)
	}
}
