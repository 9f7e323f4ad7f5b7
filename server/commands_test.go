package server

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
)

func TestRunCommandReturnsAtOnceAndCancelEndsIt(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	doc := openDoc(t, c, e.root, "notes.md", "summarize the changes\nsecond line\n")
	e.model.Script(modeltest.Turn{Hang: true})

	// The model never answers: the command must answer anyway.
	var started struct {
		TaskID string `json:"taskId"`
	}
	c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.run", "arguments": []any{map[string]any{
		"textDocument": map[string]string{"uri": doc},
		"range":        map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 21}},
	}}}, &started)
	if started.TaskID == "" {
		t.Fatal("agentls.run returned no taskId")
	}
	waitUntil(t, "the model request", func() bool { return len(e.model.Requests()) == 1 })
	if got := e.model.Requests()[0].LastUserText(); !strings.Contains(got, "summarize the changes") || strings.Contains(got, "second line") {
		t.Errorf("the prompt sent = %q, want the selected text", got)
	}
	c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.cancel", "arguments": []any{}}, nil)
	c.waitFor("the summary", func(m message) bool {
		return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "agentls: cancelled")
	})
	end := c.waitFor("progress end", func(m message) bool {
		return m.Method == "$/progress" && strings.Contains(string(m.Params), `"kind":"end"`)
	})
	if !strings.Contains(string(end.Params), `"message":"cancelled"`) {
		t.Errorf("progress end = %s, want the cancelled result", end.Params)
	}
}

func TestProgressAndEvents(t *testing.T) {
	for _, events := range []bool{true, false} {
		name := "a client that announced events gets agent/event"
		if !events {
			name = "a client that did not announce events gets none"
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, "")
			c := e.start(t)
			c.setAnswer(answerWith("agent/requestApproval", map[string]any{"outcome": "selected", "optionId": "allow_once"}))
			c.initialize(e.root, caps(true, events, false))
			scriptCommand(e.model, "approved-run")
			res, errc := c.runAsync(map[string]any{"prompt": "run it\nwith details"})
			if r := c.await(res, errc); r.StopReason != "end_turn" {
				t.Fatalf("result = %+v", r)
			}
			// All progress precedes the result, and create precedes all progress.
			var token string
			var kinds []string
			seenCreate := false
			c.mu.Lock()
			msgs := append([]message(nil), c.msgs...)
			c.mu.Unlock()
			for _, m := range msgs {
				switch m.Method {
				case "window/workDoneProgress/create":
					var p struct{ Token string }
					_ = json.Unmarshal(m.Params, &p)
					token, seenCreate = p.Token, true
				case "$/progress":
					var p struct {
						Token string
						Value progressValue
					}
					_ = json.Unmarshal(m.Params, &p)
					if !seenCreate || p.Token != token {
						t.Fatalf("$/progress %s before window/workDoneProgress/create of its token", m.Params)
					}
					kinds = append(kinds, p.Value.Kind+":"+p.Value.Title+":"+p.Value.Message)
				}
			}
			want := []string{"begin:agentls:run it", "report::calling run_command", "end::all done"}
			if !events {
				// Without agent/event, the first turn's notice of the window
				// in use is a report too: it has nowhere else to go.
				want = []string{"begin:agentls:run it", "report::the model's context window: 200000 tokens ([model] context_window)", "report::calling run_command", "end::all done"}
			}
			if strings.Join(kinds, "|") != strings.Join(want, "|") {
				t.Errorf("progress = %q, want %q", kinds, want)
			}
			evs := c.messages("agent/event")
			if !events {
				if len(evs) != 0 {
					t.Errorf("got %d agent/event without events: true", len(evs))
				}
				return
			}
			var types []string
			for i, m := range evs {
				var ev struct {
					Seq        int
					Type       string
					StopReason string
				}
				_ = json.Unmarshal(m.Params, &ev)
				if ev.Seq != i+1 {
					t.Errorf("event %d has seq %d: seq must increase by one", i, ev.Seq)
				}
				types = append(types, ev.Type)
				if ev.Type == "done" && ev.StopReason != "end_turn" {
					t.Errorf("done event %s", m.Params)
				}
			}
			joined := strings.Join(types, ",")
			for _, want := range []string{"tool_call", "approval", "tool_result", "done"} {
				if !strings.Contains(joined, want) {
					t.Errorf("events %s lack %s", joined, want)
				}
			}
			if types[len(types)-1] != "done" {
				t.Errorf("the last event is %s, want done", types[len(types)-1])
			}
		})
	}
}

func TestTranscriptOpensWithShowDocumentOrSaysWhere(t *testing.T) {
	for _, canShow := range []bool{true, false} {
		name := "showDocument opens it"
		if !canShow {
			name = "a client answering -32601 (Neovim 0.7) gets the path in a message"
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, "")
			c := e.start(t)
			if canShow {
				c.setAnswer(answerWith("window/showDocument", map[string]any{"success": true}))
			}
			c.initialize(e.root, caps(false, false, false))
			e.model.Script(modeltest.Turn{Text: "hi there"})
			var started struct{ TaskID string }
			c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.run", "arguments": []any{map[string]string{"prompt": "hello"}}}, &started)
			c.waitFor("the summary", func(m message) bool {
				return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "agentls: hi there")
			})
			var res struct {
				SessionID, Path, URI string
			}
			c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.transcript", "arguments": []any{}}, &res)
			if !strings.HasPrefix(res.Path, e.state) {
				t.Errorf("transcript path %q is not under the state dir %s", res.Path, e.state)
			}
			if b, err := os.ReadFile(res.Path); err != nil || !strings.Contains(string(b), "hi there") {
				t.Errorf("transcript: %v\n%s", err, b)
			}
			show := c.waitFor("window/showDocument", method("window/showDocument"))
			if !strings.Contains(string(show.Params), res.URI) {
				t.Errorf("showDocument %s, want %s", show.Params, res.URI)
			}
			if !canShow {
				c.waitFor("the path in a message", func(m message) bool {
					return m.Method == "window/showMessage" && strings.Contains(string(m.Params), res.Path)
				})
			}
			var chat struct{ SessionID string }
			c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.newChat"}, &chat)
			if chat.SessionID == "" || chat.SessionID == res.SessionID {
				t.Errorf("newChat = %q, want a new session (was %q)", chat.SessionID, res.SessionID)
			}
		})
	}
}

func TestUnknownCommandSaysWhatExists(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	err := c.call("workspace/executeCommand", map[string]any{"command": "agentls.frobnicate"}, nil)
	if err == nil || !strings.Contains(err.Error(), "agentls.run") {
		t.Errorf("unknown command: %v, want an error listing the commands", err)
	}
	err = c.call("workspace/executeCommand", map[string]any{"command": "agentls.run", "arguments": []any{map[string]string{}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "agent:") {
		t.Errorf("agentls.run with nothing to run: %v, want an error saying how to give a prompt", err)
	}
}

// waitUntil polls cond; it fails the test after waitLimit.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestProgressCancelButtonCancelsTheTask(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	e.model.Script(modeltest.Turn{Hang: true})
	res, errc := c.runAsync(map[string]any{"prompt": "take forever"})
	begin := c.waitFor("progress begin", func(m message) bool {
		return m.Method == "$/progress" && strings.Contains(string(m.Params), `"kind":"begin"`)
	})
	var p struct {
		Token string
		Value progressValue
	}
	if err := json.Unmarshal(begin.Params, &p); err != nil || !p.Value.Cancellable {
		t.Fatalf("begin = %s, want a cancellable progress", begin.Params)
	}
	c.notify("window/workDoneProgress/cancel", map[string]string{"token": p.Token})
	if r := c.await(res, errc); r.StopReason != "cancelled" {
		t.Errorf("result = %+v, want cancelled", r)
	}
}
