package agent

import (
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/session"
)

// A full disk that tears the transcript is said where the user sees it (a
// status event and the log), and once there is room again the transcript
// is rebuilt whole from the session file: no text cut mid-way, every turn
// the session kept, the turns after it appended as they go.
func TestAFullDiskTornTranscriptIsSaidAndRebuilt(t *testing.T) {
	disk := smallDisk(t)
	f := newFixture(t, "anthropic", func(o *Options) { o.StateDir = disk })
	f.model.Script(modeltest.Turn{Text: "answer-1"}, modeltest.Turn{Text: "answer-2"}, modeltest.Turn{Text: "answer-3"})
	r1 := f.run(t, RunRequest{Prompt: "prompt-1"}, TaskIO{})
	if r1.StopReason != "end_turn" {
		t.Fatalf("first turn: %+v", r1)
	}
	// Room for the prompt's line in the session file, not for it again in
	// the transcript: the transcript's write is cut mid-text.
	big := "prompt-2 " + strings.Repeat("y", 20<<10) + " end-of-prompt-2"
	filler := fill(t, disk, 28<<10)
	ev2 := &events{}
	f.run(t, RunRequest{Prompt: big, SessionID: r1.SessionID}, TaskIO{Events: ev2})
	said := false
	for _, e := range ev2.ofType("status") {
		said = said || strings.Contains(e.Message, "could not be written") && strings.Contains(e.Message, "rebuilt from the session file")
	}
	if !said {
		t.Errorf("the torn transcript is not said to the user; events: %+v", ev2.list())
	}
	path := f.core.TranscriptPath(r1.SessionID)
	if torn, _ := os.ReadFile(path); strings.Contains(string(torn), "prompt-2") && strings.Contains(string(torn), "end-of-prompt-2") {
		t.Fatalf("the transcript was not torn by the full disk (the test's fill left too much room):\n%.300s", torn)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	ev3 := &events{}
	r3 := f.run(t, RunRequest{Prompt: "prompt-3", SessionID: r1.SessionID}, TaskIO{Events: ev3})
	if r3.StopReason != "end_turn" {
		t.Fatalf("turn after space is back: %+v", r3)
	}
	rebuilt := false
	for _, e := range ev3.ofType("status") {
		rebuilt = rebuilt || strings.Contains(e.Message, "is rebuilt from the session file")
	}
	if !rebuilt {
		t.Errorf("the rebuild is not said; events: %+v", ev3.list())
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	stored, _ := session.ReadMessages(f.core.sessions.Path(r1.SessionID))
	for _, m := range stored {
		for _, b := range m.Content {
			if b.Type == "text" && !strings.Contains(text, b.Text) {
				t.Errorf("the rebuilt transcript lacks the session's %s text %.60q", m.Role, b.Text)
			}
		}
	}
	if strings.Contains(text, "prompt-2") != strings.Contains(text, "end-of-prompt-2") {
		t.Errorf("the rebuilt transcript still holds the prompt cut mid-text")
	}
	for _, want := range []string{"prompt-1", "answer-1", "prompt-3", "answer-3"} {
		if !strings.Contains(text, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, text)
		}
	}
	if !strings.HasSuffix(text, "\n") || !strings.Contains(text[strings.Index(text, "prompt-3"):], "end_turn") {
		t.Errorf("the turn after the rebuild is not appended whole:\n%s", text[max(0, len(text)-400):])
	}
}
