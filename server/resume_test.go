package server

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

// TestResumeByCodeAction is Helix's resume picker: after a task in one
// session and another in a new chat, the code actions offer to resume
// the first (not the current one); its command makes the first the
// commands' session, with a message naming it, and the next task is sent
// with the first session's history, not the second's. A missing or
// unknown session id is InvalidParams saying where sessions are listed.
func TestResumeByCodeAction(t *testing.T) {
	e := newEnv(t, "")
	e.model.Script(
		modeltest.Turn{Text: "The first answer."},
		modeltest.Turn{Text: "The second answer."},
		modeltest.Turn{Text: "Back in the first."},
	)
	c := e.start(t)
	plain := caps(false, false, true)
	delete(plain, "experimental") // a client without a plugin: Helix
	c.initialize(e.root, plain)
	doc := openDoc(t, c, e.root, "main.go", "package main\n")
	actions := func() map[string]*command {
		var as []codeAction
		c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]string{"uri": doc},
			"range":   map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}},
			"context": map[string]any{"diagnostics": []any{}}}, &as)
		out := map[string]*command{}
		for _, a := range as {
			if strings.HasPrefix(a.Title, "agentls: Resume session: ") {
				out[a.Title] = a.Command
			}
		}
		return out
	}
	run := func(prompt, answer string) {
		t.Helper()
		c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.run", "arguments": []any{map[string]string{"prompt": prompt}}}, nil)
		c.waitFor("the summary "+answer, func(m message) bool {
			return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "agentls: "+answer)
		})
	}
	run("first question", "The first answer.")
	if got := actions(); len(got) != 0 {
		t.Errorf("with one session, the current, the actions offer %v", keys(got))
	}
	var first, second wire.SessionResult
	c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.newChat"}, &second)
	run("second question", "The second answer.")

	got := actions()
	if len(got) != 1 {
		t.Fatalf("resume actions %v, want one: the first session", keys(got))
	}
	var resume *command
	for title, cmd := range got {
		if !strings.HasPrefix(title, "agentls: Resume session: first question (1 turn, ") {
			t.Errorf("resume action %q, want the first session's title and turns", title)
		}
		resume = cmd
	}
	c.mustCall("workspace/executeCommand", map[string]any{"command": resume.Command, "arguments": resume.Arguments}, &first)
	if first.SessionID == "" || first.SessionID == second.SessionID {
		t.Fatalf("agentls.resume = %+v, want the first session (the second is %s)", first, second.SessionID)
	}
	c.waitFor("the resume message", func(m message) bool {
		return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "resumed session "+first.SessionID+": first question (1 turn)")
	})
	if got := actions(); len(got) != 1 {
		t.Errorf("after resuming, the actions %v, want one: the second session", keys(got))
	}
	run("and then?", "Back in the first.")
	reqs := e.model.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "The first answer.") || strings.Contains(last, "The second answer.") {
		t.Errorf("the task after resuming was not sent the first session's history alone:\n%s", last)
	}

	for _, args := range [][]any{{}, {"20200101-000000-deadbeef"}} {
		err := c.call("workspace/executeCommand", map[string]any{"command": "agentls.resume", "arguments": args}, nil)
		if err == nil || !strings.Contains(err.Error(), "sessions") {
			t.Errorf("agentls.resume %v: %v, want an error saying where sessions are listed", args, err)
		}
	}
}
