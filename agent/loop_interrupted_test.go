package agent

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/session"
)

func cutOff(why string, blocks ...model.Block) model.Message {
	m := assistant(blocks...)
	if m.Content == nil {
		m.Content = []model.Block{}
	}
	m.Interrupted = why
	return m
}

// sentText is each sent message's text, for comparing what the model reads.
func sentText(msgs []model.Message) []string {
	var out []string
	for _, m := range msgs {
		var b strings.Builder
		for _, x := range m.Content {
			switch x.Type {
			case "text":
				b.WriteString(x.Text)
			case "tool_use":
				b.WriteString("<use " + x.ID + ">")
			case "tool_result":
				b.WriteString("<result " + x.ToolUseID + ">")
			}
		}
		out = append(out, m.Role+": "+b.String())
	}
	return out
}

func TestInterruptedTurnsAreSentOnceAndVisibly(t *testing.T) {
	cancelledNote := session.InterruptedNote(session.InterruptedCancelled, false)
	tests := []struct {
		name   string
		stored []model.Message
		want   []string
	}{
		{"a cancelled answer is sent with a note saying it was cut off",
			[]model.Message{user("explain"), cutOff(session.InterruptedCancelled, text("It is")), user("go on")},
			[]string{"user: explain", "assistant: It is" + cancelledNote, "user: go on"}},
		{"a turn that failed before any answer says so",
			[]model.Message{user("explain"), cutOff(session.InterruptedError), user("again?")},
			[]string{"user: explain", "assistant: " + session.InterruptedNote(session.InterruptedError, true), "user: again?"}},
		{"a client re-sending the cancelled prompt ahead of the next one: the prompt is sent once",
			[]model.Message{user("Answer slow please"), cutOff(session.InterruptedCancelled, text("Sl")), user("Answer slow please\n\nAfter cancel, one more")},
			[]string{"user: Answer slow please\n\nAfter cancel, one more"}},
		{"the same prompt again after a cancel replaces the cancelled turn",
			[]model.Message{user("hi"), assistant(text("hello")), user("Answer slow please"), cutOff(session.InterruptedCancelled), user("Answer slow please")},
			[]string{"user: hi", "assistant: hello", "user: Answer slow please"}},
		{"a repeat after a turn whose tools ran keeps the turn and drops the repeated lead",
			[]model.Message{user("fix it"), assistant(use("a")), results("a"), cutOff(session.InterruptedCancelled, text("Now")), user("fix it\n\nand test")},
			[]string{"user: fix it", "assistant: <use a>", "user: <result a>", "assistant: Now" + cancelledNote, "user: and test"}},
		{"two stored prompts in a row (a session from before interrupted answers): the repeat is sent once",
			[]model.Message{user("Answer slow please"), user("Answer slow please\n\nAfter cancel, one more")},
			[]string{"user: Answer slow please\n\nAfter cancel, one more"}},
		{"a different next prompt keeps the interrupted turn",
			[]model.Message{user("Answer slow please"), cutOff(session.InterruptedStopped, text("Sl")), user("something else")},
			[]string{"user: Answer slow please", "assistant: Sl" + session.InterruptedNote(session.InterruptedStopped, false), "user: something else"}},
		{"an answer that finished is never deduplicated",
			[]model.Message{user("again"), assistant(text("done")), user("again")},
			[]string{"user: again", "assistant: done", "user: again"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sent := session.Sendable(tt.stored)
			if err := session.ValidHistory(sent); err != nil {
				t.Fatalf("not sendable: %v", err)
			}
			got := sentText(sent)
			if strings.Join(got, "\n|") != strings.Join(tt.want, "\n|") {
				t.Errorf("sent\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

func TestAFailedTurnIsStoredAsInterrupted(t *testing.T) {
	f := newFixture(t, "openai", nil)
	f.model.Script(modeltest.Turn{Deltas: []string{"Half an ", "answer"}, ErrorType: "server_error"},
		modeltest.Turn{Text: "whole"})
	res := f.run(t, RunRequest{Prompt: "explain"}, TaskIO{})
	if res.StopReason != "error" {
		t.Fatalf("result = %+v, want error", res)
	}
	msgs := assertStoredValid(t, f, res.SessionID)
	if len(msgs) != 2 || msgs[1].Interrupted != session.InterruptedError || model.TextOf(msgs[1].Content) != "Half an answer" {
		t.Fatalf("stored %+v, want the prompt and the half answer, interrupted: error", msgs)
	}
	replay, err := f.core.Replay(res.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if last := replay[len(replay)-1]; last.Type != "status" || !strings.Contains(last.Message, "cut off: the request to the model failed") {
		t.Errorf("replay ends with %+v, want a status saying the answer was cut off", last)
	}
	res2 := f.run(t, RunRequest{Prompt: "explain", SessionID: res.SessionID}, TaskIO{})
	if res2.StopReason != "end_turn" {
		t.Fatalf("second turn = %+v", res2)
	}
	reqs := f.model.ModelRequests("openai")
	if n := strings.Count(string(reqs[len(reqs)-1].Body), "explain"); n != 1 {
		t.Errorf("the prompt repeated after the failed turn reached the model %d times, want once:\n%s", n, reqs[len(reqs)-1].Body)
	}
}

// A prompt the model refused as too long for its window, even compacted,
// is never sent again: each later turn would carry it and be refused the
// same way (a real llama.cpp session grew 4565, then 6060 tokens). A turn
// in which tools ran before the refusal is kept, with its note.
func TestATurnTooLongForTheWindowIsNotSentAgain(t *testing.T) {
	dropped := session.Sendable([]model.Message{user("hi"), assistant(text("hello")), user("an enormous prompt"), cutOff(session.InterruptedTooLong), user("a small one")})
	if got, want := strings.Join(sentText(dropped), " | "), "user: hi | assistant: hello | user: a small one"; got != want {
		t.Errorf("sent %q; want %q", got, want)
	}
	if err := session.ValidStored([]model.Message{user("an enormous prompt"), cutOff(session.InterruptedTooLong)}); err != nil {
		t.Errorf("a session holding only such a turn is valid at rest: %v", err)
	}
	kept := session.Sendable([]model.Message{user("fix it"), assistant(use("a")), results("a"), cutOff(session.InterruptedTooLong), user("go on")})
	if len(kept) != 5 || !strings.Contains(sentText(kept)[3], "too long for its context window") {
		t.Errorf("a turn that ran tools is kept with its note: %q", sentText(kept))
	}
}
