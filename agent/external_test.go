package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

// TestAnOutsideCallGetsTheCardTheModelsCallGets is issue 29's rule that an
// outside MCP client never gets more than the card allows: the same call,
// made by agentls's own model and by an outside client through CallTool,
// shows the same card (the outside one naming the client), and a denial
// leaves the workspace as it was.
func TestAnOutsideCallGetsTheCardTheModelsCallGets(t *testing.T) {
	const client = "claude-code (MCP, HTTP connection 2)"
	calls := []struct{ name, tool, input string }{
		{"a new file", "write_file", `{"path":"new.txt","content":"hi\n"}`},
		{"an edit", "edit_file", `{"path":"main.go","old_text":"package main","new_text":"package other"}`},
		{"a command", "run_command", `{"command":"git status"}`},
		{"a shell command", "run_command", `{"command":"echo hi > out.txt","shell":true}`},
		{"a secret file", "read_file", `{"path":".git-credentials"}`},
		{"a secret file's text", "read_document", `{"path":".git-credentials"}`},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, "anthropic", nil)
			writeFileT(t, filepath.Join(f.dir, "main.go"), "package main\n")
			writeFileT(t, filepath.Join(f.dir, ".git-credentials"), "https://u:p@example.com\n")
			before := snapshotDir(t, f.dir)

			modelTool := c.tool
			if c.tool == "read_document" {
				modelTool = "read_file" // the model reads with read_file; the card is the same but for the tool's name
			}
			f.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: modelTool, Input: c.input}}}, modeltest.Turn{Text: "done"})
			own := &answer{opt: "reject_once"}
			f.run(t, RunRequest{Prompt: "go"}, TaskIO{Approver: own})

			outside := &answer{opt: "reject_once"}
			res := f.core.CallTool(context.Background(), ExternalCall{Client: client, SessionID: NewExternalSession(), Tool: c.tool, Input: json.RawMessage(c.input)},
				TaskIO{Approver: outside, Workspace: f.ws})

			if len(own.asked()) != 1 || len(outside.asked()) != 1 {
				t.Fatalf("cards: the model's call got %d, the outside call %d; want one each", len(own.asked()), len(outside.asked()))
			}
			m, o := own.asked()[0], outside.asked()[0]
			if o.RequestedBy != client || o.Title != client+" asks: "+m.Title {
				t.Errorf("outside card names %q, title %q; want requestedBy %q and the title %q", o.RequestedBy, o.Title, client, client+" asks: "+m.Title)
			}
			if c.tool == "read_document" {
				m.Tool = "read_document"
			}
			m.Title, m.RequestedBy, m.ApprovalID, m.TaskID, m.ToolCallID = "", "", "", "", ""
			o.Title, o.RequestedBy, o.ApprovalID, o.TaskID, o.ToolCallID = "", "", "", "", ""
			mj, _ := json.Marshal(m)
			oj, _ := json.Marshal(o)
			if string(mj) != string(oj) {
				t.Errorf("cards differ:\nmodel's:   %s\noutside's: %s", mj, oj)
			}
			if !res.IsError || res.Status != wire.StatusDenied || !strings.Contains(res.Text, "denied") {
				t.Errorf("denied outside call = %+v, want an error result with status denied", res)
			}
			if after := snapshotDir(t, f.dir); !reflect.DeepEqual(before, after) {
				t.Errorf("the workspace changed after both calls were denied:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// TestAnOutsideEditLandsInTheBufferOnlyWhenAccepted: an accepted
// write_file goes through the editor's buffer (the Workspace), a declined
// one writes nothing anywhere.
func TestAnOutsideEditLandsInTheBufferOnlyWhenAccepted(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	f.ws.applies = true
	path := filepath.Join(f.dir, "a.txt")
	writeFileT(t, path, "old\n")
	in := json.RawMessage(`{"path":"a.txt","old_text":"old","new_text":"new"}`)
	sess := NewExternalSession()

	res := f.core.CallTool(context.Background(), ExternalCall{Client: "hermes (MCP, stdio connection 1)", SessionID: sess, Tool: "edit_file", Input: in},
		TaskIO{Approver: &answer{opt: "reject_once"}, Workspace: f.ws})
	if !res.IsError || len(f.ws.writes) != 0 {
		t.Fatalf("declined edit: result %+v, buffer writes %v; want an error and no write", res, f.ws.writes)
	}
	res = f.core.CallTool(context.Background(), ExternalCall{Client: "hermes (MCP, stdio connection 1)", SessionID: sess, Tool: "edit_file", Input: in},
		TaskIO{Approver: &answer{opt: "allow_once"}, Workspace: f.ws})
	if res.IsError || res.Status != wire.StatusCompleted {
		t.Fatalf("accepted edit: %+v", res)
	}
	ev := &events{}
	f.core.CallTool(context.Background(), ExternalCall{Client: "hermes (MCP, stdio connection 1)", SessionID: sess, Tool: "read_document", Input: json.RawMessage(`{"path":"a.txt"}`)},
		TaskIO{Events: ev, Workspace: f.ws})
	if all := ev.list(); len(all) == 0 || all[len(all)-1].Type != wire.EventDone || all[len(all)-1].StopReason != wire.StopEndTurn {
		t.Errorf("an outside call's events = %+v, want them to end with done (the fronts end the task's status there)", all)
	}
	if text, _ := f.ws.OpenText(path); text != "new\n" {
		t.Errorf("buffer after the accepted edit = %q, want %q", text, "new\n")
	}
	if disk, _ := os.ReadFile(path); string(disk) != "old\n" {
		t.Errorf("disk = %q: the edit must land in the editor's buffer, not behind it", disk)
	}
	if tr, _ := os.ReadFile(f.core.TranscriptPath(sess)); !strings.Contains(string(tr), "hermes (MCP, stdio connection 1) called edit_file") {
		t.Errorf("the connection's transcript does not record the calls:\n%s", tr)
	}
}

// TestAnOutsideCallKeepsTheMode: in plan mode an outside write is refused
// before any card, as the model's is; a read still runs.
func TestAnOutsideCallKeepsTheMode(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	writeFileT(t, filepath.Join(f.dir, "a.txt"), "old\n")
	if err := f.core.SetMode("", wire.ModePlan); err != nil {
		t.Fatal(err)
	}
	ap := &answer{opt: "allow_once"}
	res := f.core.CallTool(context.Background(), ExternalCall{Client: "x (MCP, stdio connection 1)", SessionID: NewExternalSession(), Tool: "write_file",
		Input: json.RawMessage(`{"path":"a.txt","content":"new\n"}`)}, TaskIO{Approver: ap, Workspace: f.ws})
	if !res.IsError || !strings.Contains(res.Text, "plan mode") || len(ap.asked()) != 0 {
		t.Errorf("plan-mode outside write = %+v with %d cards, want refused by plan mode without a card", res, len(ap.asked()))
	}
	res = f.core.CallTool(context.Background(), ExternalCall{Client: "x (MCP, stdio connection 1)", SessionID: NewExternalSession(), Tool: "read_document",
		Input: json.RawMessage(`{"path":"a.txt"}`)}, TaskIO{Approver: ap, Workspace: f.ws})
	if res.IsError || res.Text != "old\n" {
		t.Errorf("plan-mode read_document = %+v, want the file's text", res)
	}
}

// TestCallToolRefusesWhatIsNotOffered: only the listed tools run, and
// every call says who makes it.
func TestCallToolRefusesWhatIsNotOffered(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	for _, ec := range []ExternalCall{
		{Client: "x", SessionID: NewExternalSession(), Tool: "search_tools"},
		{Client: "x", SessionID: NewExternalSession(), Tool: "read_mcp_resource"},
		{Client: "", SessionID: NewExternalSession(), Tool: "read_file"},
		{Client: "x", SessionID: "../../etc", Tool: "read_file"},
	} {
		if res := f.core.CallTool(context.Background(), ec, TaskIO{}); !res.IsError {
			t.Errorf("CallTool(%+v) = %+v, want refused", ec, res)
		}
	}
	if names := ExternalToolNames(); slices.Contains(names, "search_tools") || !slices.Contains(names, "read_document") {
		t.Errorf("ExternalToolNames = %v", names)
	}
}

// TestAnOutsideCallIsATaskTheUserCanCancel: while its card waits, the
// outside call is listed by agent/tasks under the client's name, and
// cancelling that task ends the call as cancelled, nothing written.
func TestAnOutsideCallIsATaskTheUserCanCancel(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	asked := make(chan struct{})
	ap := approverFunc(func(ctx context.Context, a wire.Approval) (string, error) {
		close(asked)
		<-ctx.Done()
		return "", ctx.Err()
	})
	done := make(chan ExternalResult, 1)
	go func() {
		done <- f.core.CallTool(context.Background(), ExternalCall{Client: "claude-code (MCP, stdio connection 1)", SessionID: NewExternalSession(), Tool: "write_file",
			Input: json.RawMessage(`{"path":"new.txt","content":"x"}`)}, TaskIO{Approver: ap, Workspace: f.ws})
	}()
	<-asked
	tasks := f.core.Tasks()
	if len(tasks) != 1 || tasks[0].Prompt != "claude-code (MCP, stdio connection 1): write_file" || tasks[0].State != wire.TaskAwaitingApproval {
		t.Fatalf("agent/tasks while the card waits = %+v, want the outside call, awaiting approval, under the client's name", tasks)
	}
	if !f.core.Cancel(tasks[0].TaskID) {
		t.Fatal("Cancel found no task")
	}
	res := <-done
	if res.Status != wire.StatusCancelled || !res.IsError {
		t.Errorf("cancelled outside call = %+v, want status cancelled", res)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("the cancelled write happened: %v", err)
	}
	if len(f.core.Tasks()) != 0 {
		t.Errorf("the task is still listed after it ended: %+v", f.core.Tasks())
	}
}
