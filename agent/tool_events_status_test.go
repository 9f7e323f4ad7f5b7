package agent

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

// finalStatuses are the tool call statuses a call ends in (docs/protocol.md
// section 3); the others say it is still under way.
var finalStatuses = map[string]bool{"completed": true, "failed": true, "denied": true, "cancelled": true}

// checkCallLifecycle checks the event order of one tool call: its first
// tool_call carries the arguments and every later one the same (each
// update repeats them, docs/protocol.md section 3), exactly one tool_call carries a final
// status, and that one comes right before the call's tool_result, which is
// the call's last event and carries the same status.
func checkCallLifecycle(t *testing.T, all []wire.Event, id, want string) {
	t.Helper()
	var mine []int
	for i, e := range all {
		if e.ToolCallID == id {
			mine = append(mine, i)
		}
	}
	if len(mine) < 2 {
		t.Fatalf("call %s: events %+v, want at least a tool_call and a tool_result", id, mine)
	}
	first, last := all[mine[0]], all[mine[len(mine)-1]]
	if first.Type != "tool_call" || first.Arguments == nil {
		t.Errorf("call %s: first event %+v, want a tool_call with its arguments", id, first)
	}
	if last.Type != "tool_result" || string(last.Status) != want {
		t.Errorf("call %s: last event %+v, want its tool_result with status %s", id, last, want)
	}
	for _, i := range mine {
		if e := all[i]; e.Type == "tool_call" && string(e.Arguments) != string(first.Arguments) {
			t.Errorf("call %s: tool_call %+v carries arguments %s, want the call's %s on every update", id, e, e.Arguments, first.Arguments)
		}
	}
	finals := 0
	for _, i := range mine {
		if e := all[i]; e.Type == "tool_call" && finalStatuses[string(e.Status)] {
			finals++
			if string(e.Status) != want || i+1 != mine[len(mine)-1] {
				t.Errorf("call %s: final tool_call %+v at %d, want status %s right before the tool_result at %d", id, e, i, want, mine[len(mine)-1])
			}
			if e.Tool == "" || e.Title == "" {
				t.Errorf("call %s: final tool_call %+v lacks the tool and title a client labels it with", id, e)
			}
		}
	}
	if finals != 1 {
		t.Errorf("call %s: %d tool_call events with a final status, want exactly 1", id, finals)
	}
}

func TestEveryToolCallEndsWithAFinalStatusBeforeItsResult(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls []modeltest.ToolCall
		want  map[string]string // toolCallId -> final status
		io    func(f *fixture, ev *events) TaskIO
		// denyMCP runs the npm filesystem server under a policy that denies its tools.
		denyMCP bool
	}{
		{name: "a call that returns is completed",
			calls: []modeltest.ToolCall{{ID: "r1", Name: "read_file", Input: `{"path":"notes.txt"}`}},
			want:  map[string]string{"r1": "completed"}},
		{name: "a call that errors is failed",
			calls: []modeltest.ToolCall{{ID: "r1", Name: "read_file", Input: `{"path":"missing.txt"}`}},
			want:  map[string]string{"r1": "failed"}},
		{name: "an unknown tool is failed",
			calls: []modeltest.ToolCall{{ID: "u1", Name: "no_such_tool", Input: `{}`}},
			want:  map[string]string{"u1": "failed"}},
		{name: "a write nobody approved is denied",
			calls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"a.txt","content":"x"}`}},
			want:  map[string]string{"w1": "denied"}},
		{name: "a write the user rejected is denied",
			calls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"a.txt","content":"x"}`}},
			want:  map[string]string{"w1": "denied"},
			io:    func(*fixture, *events) TaskIO { return TaskIO{Approver: &answer{opt: "reject_once"}} }},
		{name: "a call denied by policy is denied",
			calls:   []modeltest.ToolCall{{ID: "m1", Name: "fs__list_allowed_directories", Input: `{}`}},
			want:    map[string]string{"m1": "denied"},
			denyMCP: true},
		{name: "a cancel ends the waiting call and the one never started as cancelled",
			calls: []modeltest.ToolCall{
				{ID: "w1", Name: "write_file", Input: `{"path":"a.txt","content":"x"}`},
				{ID: "r2", Name: "list_directory", Input: `{}`},
			},
			want: map[string]string{"w1": "cancelled", "r2": "cancelled"},
			io: func(f *fixture, ev *events) TaskIO {
				cancelOn(f, ev, func(e wire.Event) bool { return e.Type == "approval" && e.State == "waiting" })
				return TaskIO{Approver: approverFunc(func(ctx context.Context, a wire.Approval) (string, error) {
					<-ctx.Done()
					return "", ctx.Err()
				})}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tweak func(*Options)
			if tc.denyMCP {
				tweak = withFilesystemServer(t, allowRule("fs__*", "deny"))
			}
			f := newFixture(t, "anthropic", tweak)
			writeFileT(t, filepath.Join(f.dir, "notes.txt"), "text\n")
			f.model.Script(modeltest.Turn{ToolCalls: tc.calls}, modeltest.Turn{Text: "ok"})
			ev := &events{}
			io := TaskIO{}
			if tc.io != nil {
				io = tc.io(f, ev)
			}
			io.Events = ev
			f.run(t, RunRequest{Prompt: "go"}, io)
			all := ev.list()
			for id, want := range tc.want {
				checkCallLifecycle(t, all, id, want)
			}
		})
	}
}

// TestToolCallStatusOrder pins each call's tool_call statuses in order
// (docs/protocol.md section 3): a call an approval may follow starts pending, and
// is running only once it is allowed; a read-only built-in starts running.
func TestToolCallStatusOrder(t *testing.T) {
	for _, tc := range []struct {
		name      string
		call      modeltest.ToolCall
		approver  Approver
		autopilot bool
		want      []string
	}{
		{name: "a read-only built-in goes straight to running",
			call: modeltest.ToolCall{ID: "c1", Name: "read_file", Input: `{"path":"notes.txt"}`},
			want: []string{"running", "completed"}},
		{name: "an approved write is pending, awaiting_approval, then running",
			call:     modeltest.ToolCall{ID: "c1", Name: "write_file", Input: `{"path":"a.txt","content":"x"}`},
			approver: &answer{opt: "allow_once"},
			want:     []string{"pending", "awaiting_approval", "running", "completed"}},
		{name: "an approved edit is pending, awaiting_approval, then running",
			call:     modeltest.ToolCall{ID: "c1", Name: "edit_file", Input: `{"path":"notes.txt","old_text":"text","new_text":"new"}`},
			approver: &answer{opt: "allow_once"},
			want:     []string{"pending", "awaiting_approval", "running", "completed"}},
		{name: "a rejected write never runs",
			call:     modeltest.ToolCall{ID: "c1", Name: "write_file", Input: `{"path":"a.txt","content":"x"}`},
			approver: &answer{opt: "reject_once"},
			want:     []string{"pending", "awaiting_approval", "denied"}},
		{name: "an approved command is pending, awaiting_approval, then running",
			call:     modeltest.ToolCall{ID: "c1", Name: "run_command", Input: `{"command":"ls"}`},
			approver: &answer{opt: "allow_once"},
			want:     []string{"pending", "awaiting_approval", "running", "completed"}},
		{name: "a command autopilot allows is pending, then running",
			call:      modeltest.ToolCall{ID: "c1", Name: "run_command", Input: `{"command":"ls"}`},
			autopilot: true,
			want:      []string{"pending", "running", "completed"}},
		{name: "a gated built-in whose arguments fail before the gate never runs",
			call: modeltest.ToolCall{ID: "c1", Name: "run_command", Input: `{"command":""}`},
			want: []string{"pending", "failed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "anthropic", func(o *Options) { o.Config.Agent.Autopilot = tc.autopilot })
			writeFileT(t, filepath.Join(f.dir, "notes.txt"), "text\n")
			f.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{tc.call}}, modeltest.Turn{Text: "ok"})
			ev := &events{}
			f.run(t, RunRequest{Prompt: "go"}, TaskIO{Events: ev, Approver: tc.approver})
			var got []string
			for _, e := range ev.ofType("tool_call") {
				if e.ToolCallID == tc.call.ID {
					got = append(got, string(e.Status))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("tool_call statuses = %v, want %v", got, tc.want)
			}
			checkCallLifecycle(t, ev.list(), tc.call.ID, tc.want[len(tc.want)-1])
		})
	}
}
