package agent

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

func TestSessionsContinueByID(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			f := newFixture(t, format, nil)
			f.model.Script(modeltest.Turn{Text: "first answer"}, modeltest.Turn{Text: "second answer"}, modeltest.Turn{Text: "other"})
			r1 := f.run(t, RunRequest{Prompt: "first prompt\nwith a second line"}, TaskIO{})
			r2 := f.run(t, RunRequest{Prompt: "second prompt", SessionID: r1.SessionID}, TaskIO{})
			if r2.SessionID != r1.SessionID || r2.StopReason != "end_turn" {
				t.Fatalf("r2 = %+v, want the same session", r2)
			}
			body := string(f.model.Requests()[1].Body)
			for _, want := range []string{"first prompt", "first answer", "second prompt"} {
				if !strings.Contains(body, want) {
					t.Errorf("continued request lacks %q:\n%s", want, body)
				}
			}
			r3 := f.run(t, RunRequest{Prompt: "another chat"}, TaskIO{})
			if r3.SessionID == r1.SessionID {
				t.Fatalf("a run without sessionId reused %s", r1.SessionID)
			}
			list, err := f.core.Sessions()
			if err != nil || len(list) != 2 {
				t.Fatalf("Sessions() = %+v, %v; want 2", list, err)
			}
			var first wire.SessionInfo
			for _, s := range list {
				if s.SessionID == r1.SessionID {
					first = s
				}
			}
			if first.Title != "first prompt" || first.Turns != 2 {
				t.Errorf("session row = %+v, want title %q and 2 turns", first, "first prompt")
			}
			if list[0].UpdatedAt.Before(list[1].UpdatedAt) {
				t.Errorf("sessions not newest first: %+v", list)
			}
		})
	}
}

func TestBadSessionIDFailsTheTask(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	res := f.run(t, RunRequest{Prompt: "x", SessionID: "../../etc"}, TaskIO{})
	if res.StopReason != "error" || !strings.Contains(res.Error, "bad sessionId") {
		t.Fatalf("result = %+v", res)
	}
	if n := len(f.model.Requests()); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
}

func TestTranscriptIsMarkdownWithSecretsRedacted(t *testing.T) {
	f := newFixture(t, "openai", nil)
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	f.model.Script(
		modeltest.Turn{Text: "Looking.", ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "list_directory", Input: `{"path":"."}`}}},
		modeltest.Turn{Text: "The token is " + token},
	)
	res := f.run(t, RunRequest{Prompt: "my token is " + token + ", list files"}, TaskIO{})
	if res.StopReason != "end_turn" {
		t.Fatalf("result = %+v", res)
	}
	raw, err := os.ReadFile(f.core.TranscriptPath(res.SessionID))
	if err != nil {
		t.Fatal(err)
	}
	md := string(raw)
	for _, want := range []string{"## User", "list files", "## Assistant", "Looking.", "### Tool call: list_directory", "### Result (completed)"} {
		if !strings.Contains(md, want) {
			t.Errorf("transcript lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, token) {
		t.Errorf("transcript holds the secret:\n%s", md)
	}
	if st, _ := os.Stat(f.core.TranscriptPath(res.SessionID)); st.Mode().Perm() != 0o600 {
		t.Errorf("transcript mode %v, want 0600", st.Mode().Perm())
	}
}

func TestTasksAndNewChat(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	f.model.Script(modeltest.Turn{Text: "never finishes", Hang: true})
	ev := &events{}
	started := make(chan struct{})
	ev.on = func(e wire.Event) {
		if e.Type == "text" {
			select {
			case <-started:
			default:
				close(started)
			}
		}
	}
	task := f.core.Start(RunRequest{Prompt: "hang"}, TaskIO{Events: ev, Workspace: f.ws})
	<-started
	tasks := f.core.Tasks()
	if len(tasks) != 1 || tasks[0].TaskID != task.ID || tasks[0].State != "running" || tasks[0].Prompt != "hang" {
		t.Fatalf("Tasks() = %+v", tasks)
	}
	id := f.core.NewChat(task.SessionID)
	if id == "" || id == task.SessionID {
		t.Errorf("NewChat = %q", id)
	}
	if res := wait(t, task); res.StopReason != "cancelled" {
		t.Errorf("NewChat did not cancel the session's task: %+v", res)
	}
	if n := len(f.core.Tasks()); n != 0 {
		t.Errorf("%d tasks still listed", n)
	}
	if f.core.Cancel(task.ID) {
		t.Error("Cancel of a finished task returned true")
	}
}

func TestSessionsAreJSONLPerWorkspace(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	f.model.Script(modeltest.Turn{Text: "answer"})
	r1 := f.run(t, RunRequest{Prompt: "in the first workspace"}, TaskIO{})
	// A second Core on the same state directory but another workspace
	// neither lists nor continues the first workspace's session.
	other, err := New(Options{Config: &f.core.cfg, Provider: f.core.provider, StateDir: f.state, Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if list, err := other.Sessions(); err != nil || len(list) != 0 {
		t.Errorf("other workspace lists %+v, %v; want none", list, err)
	}
	if list, err := f.core.Sessions(); err != nil || len(list) != 1 || list[0].SessionID != r1.SessionID {
		t.Errorf("first workspace lists %+v, %v; want %s", list, err, r1.SessionID)
	}
	// The file is JSONL: one JSON message per line (the prompt, the answer).
	raw, err := os.ReadFile(f.core.sessions.Path(r1.SessionID))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("session line is not JSON: %q", l)
		}
	}
	if len(lines) != 2 {
		t.Errorf("session file has %d lines, want 2:\n%s", len(lines), raw)
	}
}
