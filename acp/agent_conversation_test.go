package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestAConversationThroughTheOfficialClient is a conversation as an ACP
// editor has it, through the official ACP client library (whose schema
// check sees every message): a first turn whose answer needs an MCP call
// (its permission card names the call: title, kind, rawInput; allowed
// once), a follow-up that refers to the first answer and makes the model
// propose an edit (the card names the file in locations and carries the
// diff; allowed, it is written through the editor's fs/write_text_file),
// a third turn cancelled while it streams; then a later editor process
// reopens the session with session/load (the conversation replayed) and
// a new turn carries all of it.
func TestAConversationThroughTheOfficialClient(t *testing.T) {
	marker := "acp-conversation-" + t.Name()
	w := newWorld(t, faultServer(t, marker))
	hello := filepath.Join(w.root, "hello.txt")
	if err := os.WriteFile(hello, []byte("one\nhello there\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const firstAnswer = "AGENTLS_NOPE is not set. Shall I say goodbye in hello.txt instead?"
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "m1", Name: "fs__getenv", Input: `{"text":"AGENTLS_NOPE"}`}}},
		modeltest.Turn{Text: firstAnswer},
		modeltest.Turn{Text: "Editing.", ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "edit_file",
			Input: `{"path":"hello.txt","old_text":"hello there","new_text":"goodbye there"}`}}},
		modeltest.Turn{Text: "Done: line 2 says goodbye."},
		modeltest.Turn{Text: "Working on a long answer", Hang: true},
		modeltest.Turn{Text: "I replaced hello with goodbye on line 2."},
	)
	p := plan{Marker: marker, Buffers: map[string]string{}, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "prompt", Text: "is AGENTLS_NOPE set?", Answers: []string{"allow_once"}},
		{Op: "prompt", Text: "yes, do what you offered", Answers: []string{"allow_once"}},
		{Op: "prompt", Text: "write something long", CancelOnText: true}}}
	p.FS.Read, p.FS.Write = true, true
	out := w.run(p)
	var ns newSessionResponse
	json.Unmarshal(out.Steps[1].Result, &ns)
	if ns.SessionID == "" {
		t.Fatalf("session/new: %s %+v", out.Steps[1].Result, out.Steps[1].Error)
	}
	for i, want := range []StopReason{StopEndTurn, StopEndTurn, StopCancelled} {
		if got := out.stopReason(2 + i); got != want {
			t.Errorf("turn %d: stopReason %q, want %q (%s %+v)", i+1, got, want, out.Steps[2+i].Result, out.Steps[2+i].Error)
		}
	}

	// The two cards, each naming what it asks.
	if len(out.Permissions) != 2 {
		t.Fatalf("want 2 permissions (the MCP call, the edit), got %d: %+v", len(out.Permissions), out.Permissions)
	}
	mcpCard, editCard := out.Permissions[0].ToolCall, out.Permissions[1].ToolCall
	if mcpCard.ToolCallID != "m1" || mcpCard.Title == "" || mcpCard.Kind != "other" || !sameJSON(mcpCard.RawInput, json.RawMessage(`{"text":"AGENTLS_NOPE"}`)) {
		t.Errorf("the MCP call's card: id %q title %q kind %q rawInput %s", mcpCard.ToolCallID, mcpCard.Title, mcpCard.Kind, mcpCard.RawInput)
	}
	if editCard.ToolCallID != "e1" || !strings.Contains(editCard.Title, "hello.txt") || editCard.Kind != "edit" ||
		len(editCard.Locations) != 1 || editCard.Locations[0].Path != hello || len(editCard.RawInput) == 0 {
		t.Errorf("the edit's card: id %q title %q kind %q locations %+v rawInput %s", editCard.ToolCallID, editCard.Title, editCard.Kind, editCard.Locations, editCard.RawInput)
	}
	if d := editCard.contents(); len(d) != 1 || d[0].Type != "diff" || d[0].Path != hello || d[0].NewText == nil || !strings.Contains(*d[0].NewText, "goodbye there") {
		t.Errorf("the edit's card carries no diff of hello.txt: %+v", d)
	}
	// The MCP tool can be always allowed (bound to its definition); the
	// write of a file at the workspace's top can be always denied (a
	// folder rule to always allow needs a folder below the top).
	for i, wants := range [][]string{{"allow_once", "allow_always", "reject_once"}, {"allow_once", "reject_once", "reject_always"}} {
		var options []string
		for _, o := range out.Permissions[i].Options {
			options = append(options, o.OptionID)
		}
		if strings.Join(options, ",") != strings.Join(wants, ",") {
			t.Errorf("card %d offers %v, want %v", i+1, options, wants)
		}
	}
	if len(out.Writes) != 1 || out.Writes[0].Path != hello || out.Writes[0].Content != "one\ngoodbye there\nthree\n" {
		t.Errorf("the allowed edit went to the editor as %+v, want hello.txt with goodbye", out.Writes)
	}
	if ups := out.toolUpdates("m1"); len(ups) == 0 || ups[len(ups)-1].Status != "completed" {
		t.Errorf("the MCP call did not complete: %+v", ups)
	}

	reqs := w.model.ModelRequests("openai")
	if len(reqs) != 5 {
		t.Fatalf("the model got %d requests, want 5 (call, answer, edit, answer, the cancelled turn)", len(reqs))
	}
	if body := string(reqs[2].Body); !strings.Contains(body, "Shall I say goodbye") || !strings.Contains(reqs[2].LastUserText(), "yes, do what you offered") {
		t.Errorf("the follow-up was not sent with the first answer before it:\n%s", body)
	}
	if !strings.Contains(out.text(), firstAnswer) || !strings.Contains(out.text(), "Done: line 2 says goodbye.") || !strings.Contains(out.text(), "Working") {
		t.Errorf("the streamed answers: %q", out.text())
	}
	testenv.WaitNoProcesses(t, marker, 5*time.Second)

	// A later editor process reopens the session: the conversation is
	// replayed, and a new turn carries all of it.
	again := w.run(plan{Marker: marker, Steps: []step{{Op: "initialize"}, {Op: "load", Cwd: w.root, SessionID: ns.SessionID},
		{Op: "prompt", Text: "what did you change?"}}})
	if again.Steps[1].Error != nil {
		t.Fatalf("session/load: %+v", again.Steps[1].Error)
	}
	var users []string
	for _, u := range again.Updates {
		if u.SessionID != ns.SessionID {
			t.Errorf("an update of the reopened session names %s", u.SessionID)
		}
		if u.Update.SessionUpdate == "user_message_chunk" {
			users = append(users, u.Update.chunkText())
		}
	}
	if got := strings.Join(users, "|"); got != "is AGENTLS_NOPE set?|yes, do what you offered|write something long" {
		t.Errorf("the replayed prompts: %q", got)
	}
	if text := again.text(); !strings.Contains(text, firstAnswer) || !strings.HasSuffix(text, "I replaced hello with goodbye on line 2.") {
		t.Errorf("the replayed conversation and the new answer: %q", text)
	}
	if again.stopReason(2) != StopEndTurn {
		t.Errorf("the reopened session's turn: %s %+v", again.Steps[2].Result, again.Steps[2].Error)
	}
	reqs = w.model.ModelRequests("openai")
	last := string(reqs[len(reqs)-1].Body)
	for _, want := range []string{"is AGENTLS_NOPE set?", firstAnswer, "Done: line 2 says goodbye.", "write something long", "what did you change?"} {
		if !strings.Contains(last, want) {
			t.Errorf("the reopened session's request lacks %q", want)
		}
	}
	testenv.WaitNoProcesses(t, marker, 5*time.Second)
}
