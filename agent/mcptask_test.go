package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

func longTurn(input string) modeltest.Turn {
	return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_long", Name: "v2__long", Input: input}}}
}

func readFileT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// waitFor polls cond until it holds (the server and the core work on
// their own goroutines), failing after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// TestE2EACallRunAsATaskShowsItsProgress: a real 2026-07-28 server runs
// the call as a task; while agentls polls it the call is running and each
// status the server gives reaches the events as the call's progress; the
// approval card, answered before the call ran, is resolved before any of
// it; the task's result is the tool result.
func TestE2EACallRunAsATaskShowsItsProgress(t *testing.T) {
	log := filepath.Join(t.TempDir(), "requests.log")
	f := newFixture(t, "anthropic", v2ServersWith(t, log, 0))
	f.model.Script(longTurn(`{"steps":3}`), modeltest.Turn{Text: "done"})
	ev := &events{}
	ap := &answer{opt: string(wire.OptionAllowOnce)}
	res := f.run(t, RunRequest{Prompt: "run it"}, TaskIO{Events: ev, Approver: ap})
	if res.StopReason != wire.StopEndTurn {
		t.Fatalf("result %+v", res)
	}
	if len(ap.asked()) != 1 {
		t.Fatalf("cards %+v", ap.asked())
	}
	if trs := f.model.Requests()[1].ToolResults(); len(trs) != 1 || trs[0].Content != "finished 3 steps" {
		t.Fatalf("tool result %+v", trs)
	}
	resolved, progress := -1, 0
	for i, e := range ev.list() {
		switch {
		case e.Type == wire.EventApproval && e.State == wire.ApprovalResolved:
			resolved = i
		case e.Type == wire.EventToolCall && e.Status == wire.StatusRunning && e.Message != "":
			if resolved < 0 {
				t.Errorf("progress %q before the card was resolved", e.Message)
			}
			if !strings.HasPrefix(e.Message, "step ") && e.Message != "started" && e.Message != "done" {
				t.Errorf("progress %q is not the server's status", e.Message)
			}
			progress++
		}
	}
	if progress == 0 {
		t.Errorf("no progress event: %+v", ev.ofType("tool_call"))
	}
	if reqs := readFileT(t, log); !strings.Contains(reqs, "tools/call long tasks=true") || !strings.Contains(reqs, "tasks/get t-1") {
		t.Errorf("the server got:\n%s", reqs)
	}
}

// TestE2ECancellingATaskReachesTheServer: the user cancels the agent task
// while the server's task is still working: the server gets tasks/cancel
// for it, and the turn ends cancelled.
func TestE2ECancellingATaskReachesTheServer(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "requests.log")
	f := newFixture(t, "anthropic", v2ServersWith(t, log, 0, allowRule("v2__*", "allow")))
	f.model.Script(longTurn(`{"hold":"`+filepath.Join(dir, "never")+`"}`), modeltest.Turn{Text: "done"})
	ev := &events{}
	waiting := make(chan struct{})
	ev.on = func(e wire.Event) {
		if e.Type == wire.EventToolCall && strings.HasPrefix(e.Message, "waiting for ") {
			select {
			case <-waiting:
			default:
				close(waiting)
			}
		}
	}
	task := f.core.Start(RunRequest{Prompt: "run it"}, TaskIO{Events: ev, Workspace: f.ws})
	select {
	case <-waiting:
	case <-time.After(time.Minute):
		t.Fatal("the task never said it was waiting")
	}
	if !f.core.Cancel(task.ID) {
		t.Fatal("Cancel found no task")
	}
	if res := wait(t, task); res.StopReason != wire.StopCancelled {
		t.Fatalf("result %+v", res)
	}
	if reqs := readFileT(t, log); !strings.Contains(reqs, "tasks/cancel t-1\n") {
		t.Errorf("no tasks/cancel reached the server:\n%s", reqs)
	}
}

// TestE2EATaskOutlivesTheTurn: a task still working at the server's
// call_timeout ends the call (the model is told it still runs) and the
// turn; the core follows it on, and once it finishes its result is in
// the transcript at once and in the next turn's first message. The
// question it asks after the turn is declined, never a card. Another
// such task, left running, is cancelled on the server by cancelling the
// agent task that started it, after that task ended.
func TestE2EATaskOutlivesTheTurn(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "requests.log")
	release := filepath.Join(dir, "release")
	f := newFixture(t, "anthropic", v2ServersWith(t, log, time.Second, allowRule("v2__*", "allow")))
	f.model.Script(longTurn(`{"steps":1,"hold":"`+release+`","ask":"Which colour?"}`), modeltest.Turn{Text: "it runs on"})
	ap := &formApprover{answer: answer{opt: wire.OptionAccept}, content: map[string]any{"color": "leak"}}
	res := f.run(t, RunRequest{Prompt: "run it"}, TaskIO{Events: &events{}, Approver: ap})
	if res.StopReason != wire.StopEndTurn {
		t.Fatalf("result %+v", res)
	}
	trs := f.model.Requests()[1].ToolResults()
	if len(trs) != 1 || trs[0].IsError || !strings.Contains(trs[0].Content, "v2__long is still running on v2 as task t-1") {
		t.Fatalf("tool result %+v", trs)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(f.state, "transcripts", res.SessionID+".md")
	waitFor(t, "the task's result in the transcript", func() bool {
		b, _ := os.ReadFile(transcript)
		return strings.Contains(string(b), "task t-1 of v2 has finished. Its result:\n> finished 1 steps")
	})
	// Its question came after the turn: declined, no card held open.
	if b, _ := os.ReadFile(transcript); !strings.Contains(string(b), `finished 1 steps; answer {"action":"decline"}`) || len(ap.asked()) != 0 {
		t.Errorf("the task's question after the turn was not declined without a card (cards %+v):\n%s", ap.asked(), b)
	}

	f.model.Script(modeltest.Turn{Text: "noted"})
	f.run(t, RunRequest{Prompt: "and now?", SessionID: res.SessionID}, TaskIO{Events: &events{}})
	reqs := f.model.Requests()
	last := reqs[len(reqs)-1].LastUserText()
	if !strings.Contains(last, "[agentls: since your last turn]") || !strings.Contains(last, "finished 1 steps") || !strings.Contains(last, "and now?") {
		t.Fatalf("the next turn's message: %q", last)
	}

	f.model.Script(longTurn(`{"hold":"`+filepath.Join(dir, "never")+`"}`), modeltest.Turn{Text: "it runs on"})
	second := f.run(t, RunRequest{Prompt: "run another"}, TaskIO{Events: &events{}})
	if !f.core.Cancel(second.TaskID) {
		t.Fatal("cancelling the ended agent task found no MCP task to cancel")
	}
	if reqs := readFileT(t, log); !strings.Contains(reqs, "tasks/cancel t-2\n") {
		t.Errorf("no tasks/cancel reached the server:\n%s", reqs)
	}
}

// TestE2EATasksQuestionIsACard: a task that needs the user's answer while
// its turn runs (input_required on tasks/get) puts it on the same card as
// any server's question (the server named, Decline last); the answer goes
// back with tasks/update and the task ends with it.
func TestE2EATasksQuestionIsACard(t *testing.T) {
	log := filepath.Join(t.TempDir(), "requests.log")
	f := newFixture(t, "anthropic", v2ServersWith(t, log, 0, allowRule("v2__*", "allow")))
	f.model.Script(longTurn(`{"steps":1,"ask":"Which colour?"}`), modeltest.Turn{Text: "done"})
	fa := &formApprover{answer: answer{opt: wire.OptionAccept}, content: map[string]any{"color": "teal"}}
	f.run(t, RunRequest{Prompt: "run it"}, TaskIO{Events: &events{}, Approver: fa})
	cards := fa.asked()
	if len(cards) != 1 || cards[0].Kind != wire.ApprovalElicitation || cards[0].Server != "v2" || cards[0].Title != "v2 asks: Which colour?" ||
		cards[0].Options[len(cards[0].Options)-1].OptionID != wire.OptionDecline {
		t.Fatalf("cards %+v", cards)
	}
	if trs := f.model.Requests()[1].ToolResults(); len(trs) != 1 || trs[0].Content != `finished 1 steps; answer {"color":"teal"}` {
		t.Fatalf("tool result %+v", trs)
	}
	if reqs := readFileT(t, log); !strings.Contains(reqs, `tasks/update t-1 {"pick":{"action":"accept","content":{"color":"teal"}}}`) {
		t.Errorf("the server got:\n%s", reqs)
	}
}
