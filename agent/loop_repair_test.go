package agent

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/wire"
)

// fourTurns is a stored session of four complete turns, two with tool calls.
func fourTurns() []model.Message {
	return []model.Message{
		user("prompt-1"), assistant(use("a")), results("a"), assistant(text("answer-1")),
		user("prompt-2"), assistant(text("answer-2")),
		user("prompt-3"), assistant(use("b")), results("b"), assistant(text("answer-3")),
		user("prompt-4"), assistant(text("answer-4")),
	}
}

// storeLines writes msgs as a session file, then lets edit change its lines.
func storeLines(t *testing.T, s session.Store, id string, msgs []model.Message, edit func([]string) []string) {
	t.Helper()
	if err := s.Append(id, msgs...); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(s.Path(id))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	lines = edit(lines)
	if err := os.WriteFile(s.Path(id), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSessionRepairKeepsEveryIntactTurn damages one line of a stored
// session and continues it through a real task: every intact turn must reach
// the model, the damaged lines must be kept in the side file, and the user
// must be told.
func TestSessionRepairKeepsEveryIntactTurn(t *testing.T) {
	cases := []struct {
		name     string
		edit     func([]string) []string
		sent     []string // must reach the model
		setAside []string // must be in the side file, not sent
	}{
		{"torn middle line", func(l []string) []string {
			l[5] = l[5][:len(l[5])-4] // answer-2, torn by a crash
			return l
		}, []string{"prompt-1", "answer-1", "prompt-2", "prompt-3", "answer-3", "prompt-4", "answer-4"}, []string{"answer-2"}},
		{"garbage first line", func(l []string) []string {
			l[0] = "\x00\x01 not json"
			return l
		}, []string{"prompt-2", "answer-2", "prompt-3", "answer-3", "prompt-4", "answer-4"}, []string{"not json", "answer-1"}},
		{"missing tool_result", func(l []string) []string {
			return append(l[:8:8], l[9:]...) // the result of tool call b
		}, []string{"prompt-1", "answer-1", "prompt-2", "answer-2", "prompt-3", "prompt-4", "answer-4"}, []string{"answer-3"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "anthropic", nil)
			s := f.core.sessions
			storeLines(t, s, "s1", fourTurns(), tc.edit)
			f.model.Script(modeltest.Turn{Text: "answer-5"})
			var ev events
			res := f.run(t, RunRequest{Prompt: "prompt-5", SessionID: "s1"}, TaskIO{Events: &ev})
			if res.StopReason != "end_turn" {
				t.Fatalf("result = %+v", res)
			}
			reqs := f.model.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d model requests, want 1", len(reqs))
			}
			body := string(reqs[0].Body)
			for _, want := range append(tc.sent, "prompt-5") {
				if !strings.Contains(body, want) {
					t.Errorf("the request lacks %q:\n%s", want, body)
				}
			}
			side, err := os.ReadFile(s.AsidePath("s1"))
			if err != nil {
				t.Fatalf("no side file: %v", err)
			}
			for _, want := range tc.setAside {
				if !strings.Contains(string(side), want) {
					t.Errorf("side file lacks %q:\n%s", want, side)
				}
				if strings.Contains(body, want) {
					t.Errorf("set-aside %q was sent", want)
				}
			}
			told := false
			for _, e := range ev.ofType("status") {
				if strings.Contains(e.Message, "set aside") && strings.Contains(e.Message, s.AsidePath("s1")) {
					told = true
				}
			}
			if !told {
				t.Errorf("no status event names the side file; events: %+v", ev.list())
			}
			// The repaired file is valid and holds the new turn too.
			msgs, note, err := s.Load("s1")
			if err != nil || note != "" || session.ValidStored(msgs) != nil {
				t.Fatalf("after the turn: load = %d msgs, note %q, err %v, valid %v", len(msgs), note, err, session.ValidStored(msgs))
			}
			if last := msgs[len(msgs)-1]; model.TextOf(last.Content) != "answer-5" {
				t.Errorf("last stored message = %+v", last)
			}
		})
	}
}

// TestSessionAppendAfterATornLineStartsANewLine: a crash leaves a line
// without its newline; the next append must not glue onto it.
func TestSessionAppendAfterATornLineStartsANewLine(t *testing.T) {
	s := session.NewStore(t.TempDir(), "/some/root")
	if err := s.Append("s1", user("first"), assistant(text("answer"))); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(s.Path("s1"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"role":"user","content":[{"type":"te`) // torn by a crash
	f.Close()
	if err := s.Append("s1", user("second"), assistant(text("answer-2"))); err != nil {
		t.Fatal(err)
	}
	got, note, err := s.Load("s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || model.TextOf(got[2].Content) != "second" || model.TextOf(got[3].Content) != "answer-2" {
		t.Fatalf("loaded %+v, want both turns", got)
	}
	if !strings.Contains(note, "line 3") {
		t.Errorf("note = %q, want it to name unreadable line 3", note)
	}
	side, _ := os.ReadFile(s.AsidePath("s1"))
	if string(side) != `{"role":"user","content":[{"type":"te`+"\n" {
		t.Errorf("side file = %q", side)
	}
	raw, _ := os.ReadFile(s.Path("s1"))
	if bytes.Count(raw, []byte("\n")) != 4 || bytes.Contains(raw, []byte(`"te`+"\n")) {
		t.Errorf("file after repair:\n%s", raw)
	}
}

// TestReplayCarriesTheRepairNote: a session repaired on load (session/load
// replays it) starts with the status note naming the side file, as a live
// task shows it, and the intact turns follow.
func TestReplayCarriesTheRepairNote(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	s := f.core.sessions
	storeLines(t, s, "s1", fourTurns(), func(l []string) []string {
		l[5] = "garbage"
		return l
	})
	evs, err := f.core.Replay("s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) == 0 || evs[0].Type != "status" || !strings.Contains(evs[0].Message, "set aside") || !strings.Contains(evs[0].Message, s.AsidePath("s1")) {
		t.Fatalf("first replayed event = %+v, want the repair note naming the side file", evs[:min(1, len(evs))])
	}
	var prompts []string
	for _, e := range evs {
		if e.Type == wire.EventPrompt {
			prompts = append(prompts, e.Text)
		}
	}
	if strings.Join(prompts, ",") != "prompt-1,prompt-2,prompt-3,prompt-4" {
		t.Errorf("replayed prompts = %v, want every intact turn", prompts)
	}
}
