package agent

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/tools"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// assertStoredValid loads a session as a next run would and checks that it
// is valid at rest and, with one more prompt, valid to send.
func assertStoredValid(t *testing.T, f *fixture, sessionID string) []model.Message {
	t.Helper()
	msgs, _, err := f.core.sessions.Load(sessionID)
	if err != nil {
		t.Fatalf("load session: %v", err)
	}
	if err := session.ValidStored(msgs); err != nil {
		t.Fatalf("stored history invalid: %v", err)
	}
	next := append(append([]model.Message(nil), msgs...), model.Message{Role: "user", Content: []model.Block{{Type: "text", Text: "next"}}})
	if err := session.ValidHistory(session.Sendable(next)); err != nil {
		t.Fatalf("stored history + a prompt is not sendable: %v", err)
	}
	return msgs
}

// assertEndsInterrupted checks that a stored turn ends with an (empty)
// interrupted answer, for why.
func assertEndsInterrupted(t *testing.T, msgs []model.Message, why string) {
	t.Helper()
	if len(msgs) < 2 {
		t.Fatalf("stored %+v, want a turn ending with an interrupted answer", msgs)
	}
	if last := msgs[len(msgs)-1]; last.Role != "assistant" || last.Interrupted != why {
		t.Fatalf("last stored message = %+v, want an assistant message interrupted: %s", last, why)
	}
}

// cancelOn cancels the task at the first event that matches.
func cancelOn(f *fixture, ev *events, match func(wire.Event) bool) {
	done := false
	ev.on = func(e wire.Event) {
		if !done && match(e) {
			done = true
			f.core.Cancel(e.TaskID)
		}
	}
}

func TestCancelWhileStreamingKeepsThePartialAnswerMarked(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	f.model.Script(modeltest.Turn{Text: "partial answer that never ends", Hang: true})
	ev := &events{}
	cancelOn(f, ev, func(e wire.Event) bool { return e.Type == "text" })
	res := f.run(t, RunRequest{Prompt: "hang"}, TaskIO{Events: ev})
	if res.StopReason != "cancelled" {
		t.Fatalf("result = %+v, want cancelled", res)
	}
	msgs := assertStoredValid(t, f, res.SessionID)
	if len(msgs) != 2 || msgs[1].Role != "assistant" || msgs[1].Interrupted != session.InterruptedCancelled ||
		!strings.HasPrefix(res.Text, model.TextOf(msgs[1].Content)) || model.TextOf(msgs[1].Content) == "" {
		t.Errorf("stored %+v, want the prompt and what streamed (%q), marked interrupted: cancelled", msgs, res.Text)
	}
	if _, err := os.Stat(f.core.sessions.JournalPath(res.SessionID)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the turn's journal outlives a turn that stored its end: %v", err)
	}
}

func TestCancelWhileWaitingForApprovalAnswersEveryToolUse(t *testing.T) {
	f := newFixture(t, "openai", nil)
	f.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{
		{ID: "w1", Name: "write_file", Input: `{"path":"a.txt","content":"x"}`},
		{ID: "r2", Name: "list_directory", Input: `{}`},
	}})
	ev := &events{}
	cancelOn(f, ev, func(e wire.Event) bool { return e.Type == "approval" && e.State == "waiting" })
	blocking := approverFunc(func(ctx context.Context, a wire.Approval) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	res := f.run(t, RunRequest{Prompt: "write"}, TaskIO{Events: ev, Approver: blocking})
	if res.StopReason != "cancelled" {
		t.Fatalf("result = %+v, want cancelled", res)
	}
	msgs := assertStoredValid(t, f, res.SessionID)
	assertEndsInterrupted(t, msgs, session.InterruptedCancelled)
	last := msgs[len(msgs)-2]
	if len(last.Content) != 2 || last.Content[0].Content != tools.Cancelled || last.Content[1].Content != tools.Cancelled {
		t.Errorf("last stored message = %+v, want two ERROR: cancelled results", last)
	}
}

func TestCancelWhileAToolRuns(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	marker := "agentls-cancel-" + strings.ReplaceAll(t.Name(), "/", "-")
	sl := sleeper(t, marker)
	f.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{
		{ID: "c1", Name: "run_command", Input: `{"command":"` + sl + ` 100 & ` + sl + ` 100; wait","shell":true}`},
	}})
	ev := &events{}
	ap := approverFunc(func(ctx context.Context, a wire.Approval) (string, error) { return "allow_once", nil })
	// Cancel once the command is in the process table.
	watching := make(chan struct{})
	ev.on = func(e wire.Event) {
		if e.Type == "approval" && e.State == "resolved" {
			go func() {
				defer close(watching)
				waitProcesses(t, marker, 2)
				f.core.Cancel(e.TaskID)
			}()
		}
	}
	res := f.run(t, RunRequest{Prompt: "sleep"}, TaskIO{Events: ev, Approver: ap})
	if res.StopReason != "cancelled" {
		t.Fatalf("result = %+v, want cancelled", res)
	}
	msgs := assertStoredValid(t, f, res.SessionID)
	assertEndsInterrupted(t, msgs, session.InterruptedCancelled)
	if last := msgs[len(msgs)-2]; last.Content[0].Content != tools.Cancelled {
		t.Errorf("result = %+v, want ERROR: cancelled", last.Content[0])
	}
	<-watching
	testenv.WaitNoProcesses(t, marker, 5*time.Second)
}
