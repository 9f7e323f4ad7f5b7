package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/tools"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

var formats = []string{"anthropic", "openai"}

func TestTextOnlyTurnStreamsAndEnds(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			f := newFixture(t, format, nil)
			f.model.Script(modeltest.Turn{Text: "Hello from the fake model."})
			ev := &events{}
			res := f.run(t, RunRequest{Prompt: "say hello"}, TaskIO{Events: ev})
			if res.StopReason != "end_turn" || res.Text != "Hello from the fake model." {
				t.Fatalf("result = %+v, want end_turn with the model's text", res)
			}
			var streamed strings.Builder
			for _, e := range ev.ofType("text") {
				streamed.WriteString(e.Delta)
			}
			if streamed.String() != res.Text {
				t.Errorf("text deltas join to %q, want %q", streamed.String(), res.Text)
			}
			all := ev.list()
			for i, e := range all {
				if e.Seq != i+1 || e.TaskID != res.TaskID || e.SessionID != res.SessionID {
					t.Errorf("event %d: seq %d task %s session %s; want seq %d of %s/%s", i, e.Seq, e.TaskID, e.SessionID, i+1, res.TaskID, res.SessionID)
				}
			}
			if last := all[len(all)-1]; last.Type != "done" || last.StopReason != "end_turn" || last.Text != res.Text || last.Usage == nil {
				t.Errorf("last event = %+v, want done with stop reason, text and usage", last)
			}
			req := f.model.Requests()[0]
			sys := req.System()
			for _, want := range []string{"third-party DATA", f.dir} {
				if !strings.Contains(sys, want) {
					t.Errorf("system prompt lacks %q:\n%s", want, sys)
				}
			}
			names := req.ToolNames()
			for _, b := range tools.BuiltinNames() {
				if b == tools.SearchToolName {
					if slices.Contains(names, b) {
						t.Errorf("%s offered with no MCP tool to search", b)
					}
					continue // offered only when the MCP tools are too many (toolsearch.go)
				}
				if !slices.Contains(names, b) {
					t.Errorf("tool %s not offered; offered %v", b, names)
				}
			}
		})
	}
}

func TestToolCallResultReachesTheNextRequest(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			f := newFixture(t, format, nil)
			path := filepath.Join(f.dir, "notes.txt")
			writeFileT(t, path, "on disk\n")
			f.ws.buffers = map[string]string{path: "unsaved buffer text\n"}
			f.model.Script(
				modeltest.Turn{Text: "Reading.", ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "read_file", Input: `{"path":"notes.txt"}`}}},
				modeltest.Turn{Text: "It says: unsaved buffer text"},
			)
			ev := &events{}
			res := f.run(t, RunRequest{Prompt: "read notes.txt"}, TaskIO{Events: ev})
			if res.StopReason != "end_turn" {
				t.Fatalf("result = %+v", res)
			}
			reqs := f.model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			trs := reqs[1].ToolResults()
			if len(trs) != 1 || trs[0].ToolUseID != "call_1" || !strings.Contains(trs[0].Content, "unsaved buffer text") || trs[0].IsError {
				t.Fatalf("second request's tool results = %+v, want call_1 with the buffer's unsaved text", trs)
			}
			calls, results := ev.ofType("tool_call"), ev.ofType("tool_result")
			if len(calls) == 0 || calls[0].ToolCallID != "call_1" || calls[0].Tool != "read_file" || len(results) != 1 || results[0].Status != "completed" {
				t.Errorf("tool events = %+v / %+v", calls, results)
			}
		})
	}
}

func TestWriteWithoutApproverIsDenied(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			f := newFixture(t, format, nil)
			f.model.Script(
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"new.txt","content":"x"}`}}},
				modeltest.Turn{Text: "ok"},
			)
			ev := &events{}
			res := f.run(t, RunRequest{Prompt: "write"}, TaskIO{Events: ev}) // nil Approver
			if res.StopReason != "end_turn" {
				t.Fatalf("result = %+v", res)
			}
			// The denial reaches both formats as written: never "Error: ERROR: ...".
			trs := f.model.Requests()[1].ToolResults()
			if len(trs) != 1 || trs[0].Content != "ERROR: denied by the user" || !trs[0].IsError {
				t.Fatalf("tool results = %+v, want the denial", trs)
			}
			if _, err := os.Stat(filepath.Join(f.dir, "new.txt")); !os.IsNotExist(err) {
				t.Errorf("denied write created the file (stat err %v)", err)
			}
			ap := ev.ofType("approval")
			if len(ap) != 2 || ap[0].State != "waiting" || ap[1].State != "resolved" || ap[0].ApprovalID != ap[1].ApprovalID || ap[0].ApprovalID == "" {
				t.Errorf("approval events = %+v, want waiting then resolved with one id", ap)
			}
		})
	}
}

func TestApprovalCardsAndAllowedWriteGoesThroughTheEditor(t *testing.T) {
	f := newFixture(t, "openai", nil)
	f.ws.applies = true
	path := filepath.Join(f.dir, "main.go")
	writeFileT(t, path, "package main\n\nfunc old() {}\n")
	f.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "edit_file", Input: `{"path":"main.go","old_text":"old","new_text":"renamed"}`}}},
		modeltest.Turn{Text: "done"},
	)
	ap := &answer{opt: "allow_once"}
	res := f.run(t, RunRequest{Prompt: "rename"}, TaskIO{Approver: ap})
	if res.StopReason != "end_turn" {
		t.Fatalf("result = %+v", res)
	}
	asked := ap.asked()
	if len(asked) != 1 || asked[0].Kind != "write" || asked[0].TaskID != res.TaskID || !strings.HasPrefix(asked[0].ApprovalID, "a") ||
		!strings.Contains(asked[0].Detail, path) || !strings.Contains(asked[0].Detail, "3   -func old() {}") || !strings.Contains(asked[0].Detail, "  3 +func renamed() {}") {
		t.Fatalf("approvals = %+v, want one write card naming the path with a diff", asked)
	}
	if got, _ := f.ws.OpenText(path); got != "package main\n\nfunc renamed() {}\n" {
		t.Errorf("editor buffer = %q", got)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "package main\n\nfunc old() {}\n" {
		t.Errorf("the disk changed although the editor applied the edit: %q", disk)
	}
}

func TestApprovalTimeoutDenies(t *testing.T) {
	f := newFixture(t, "anthropic", func(o *Options) { o.Config.Agent.ApprovalTimeout = 50 * time.Millisecond })
	f.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"a.txt","content":"x"}`}}},
		modeltest.Turn{Text: "ok"},
	)
	never := approverFunc(func(ctx context.Context, a wire.Approval) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	res := f.run(t, RunRequest{Prompt: "write"}, TaskIO{Approver: never})
	if res.StopReason != "end_turn" {
		t.Fatalf("result = %+v", res)
	}
	trs := f.model.Requests()[1].ToolResults()
	if len(trs) != 1 || trs[0].Content != "ERROR: approval timed out after 50ms: denied" {
		t.Fatalf("tool results = %+v", trs)
	}
}

func TestUnknownOrRejectOptionDenies(t *testing.T) {
	for _, opt := range []string{"reject_once", "allow_always", "yes please", ""} {
		t.Run(opt, func(t *testing.T) {
			// allow_always is not offered on a write card: an option that was
			// not offered is a denial, never an approval.
			f := newFixture(t, "anthropic", nil)
			f.model.Script(
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"a.txt","content":"x"}`}}},
				modeltest.Turn{Text: "ok"},
			)
			f.run(t, RunRequest{Prompt: "write"}, TaskIO{Approver: &answer{opt: opt}})
			trs := f.model.Requests()[1].ToolResults()
			if len(trs) != 1 || trs[0].Content != "ERROR: denied by the user" {
				t.Fatalf("tool results = %+v", trs)
			}
		})
	}
}

func TestMaxIterationsStopsTheLoop(t *testing.T) {
	f := newFixture(t, "openai", func(o *Options) { o.Config.Agent.MaxIterations = 2 })
	call := func(id string) modeltest.Turn {
		return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: id, Name: "list_directory", Input: `{}`}}}
	}
	f.model.Script(call("c1"), call("c2"), call("c3"))
	res := f.run(t, RunRequest{Prompt: "loop"}, TaskIO{})
	if res.StopReason != "max_iterations" {
		t.Fatalf("result = %+v, want max_iterations", res)
	}
	if n := len(f.model.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2", n)
	}
	assertStoredValid(t, f, res.SessionID)
}

func TestUnknownToolAndBadArgumentsComeBackAsErrors(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	f.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{
			{ID: "u1", Name: "no_such_tool", Input: `{}`},
			{ID: "u2", Name: "read_file", Input: `{"path":"x","bogus":1}`},
			{ID: "u3", Name: "read_file", Input: `not json`},
		}},
		modeltest.Turn{Text: "ok"},
	)
	res := f.run(t, RunRequest{Prompt: "go"}, TaskIO{})
	if res.StopReason != "end_turn" {
		t.Fatalf("result = %+v", res)
	}
	trs := f.model.Requests()[1].ToolResults()
	if len(trs) != 3 {
		t.Fatalf("tool results = %+v, want 3", trs)
	}
	for i, want := range []string{`unknown tool "no_such_tool"`, `unknown field "bogus"`, "were not a valid JSON object: not json"} {
		if !trs[i].IsError || !strings.Contains(trs[i].Content, want) {
			t.Errorf("result %d = %+v, want an error containing %q", i, trs[i], want)
		}
	}
}

func TestErrorFromTheModelEndsTheTask(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	f.model.Script(modeltest.Turn{Status: 401, ErrorType: "authentication_error"})
	res := f.run(t, RunRequest{Prompt: "hi"}, TaskIO{})
	if res.StopReason != "error" || res.Error == "" {
		t.Fatalf("result = %+v, want error with a message", res)
	}
	assertStoredValid(t, f, res.SessionID)
}

// The output budget shrinks to fit what the window leaves after the input
// (vLLM refuses max_tokens + input over its max_model_len), keeping a tenth
// for the estimate's error, and never goes under 256 tokens.
func TestFitBudgetLeavesRoomInTheWindow(t *testing.T) {
	cases := []struct{ budget, window, input, want int }{
		{8192, 200000, 5000, 8192},
		{8192, 4096, 1000, 4096 - 1000 - 409},
		{8192, 4096, 3900, 256},
		{100, 4096, 3900, 100},
	}
	for _, c := range cases {
		if got := fitBudget(c.budget, c.window, c.input); got != c.want {
			t.Errorf("fitBudget(%d, %d, %d) = %d; want %d", c.budget, c.window, c.input, got, c.want)
		}
	}
}
