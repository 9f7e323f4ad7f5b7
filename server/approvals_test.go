package server

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// scriptCommand scripts a model that calls run_command (which asks) and
// then ends the turn.
func scriptCommand(m *modeltest.Server, marker string) {
	m.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "run_command", Input: `{"command":"echo ` + marker + `"}`}}},
		modeltest.Turn{Text: "all done"},
	)
}

// toolResult is the tool result the model got in its second request.
func toolResult(t *testing.T, m *modeltest.Server) modeltest.ToolResult {
	t.Helper()
	reqs := m.Requests()
	if len(reqs) < 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	res := reqs[1].ToolResults()
	if len(res) != 1 {
		t.Fatalf("second model request carries %d tool results, want 1", len(res))
	}
	return res[0]
}

func TestApprovalPaths(t *testing.T) {
	allowed := func(t *testing.T, r modeltest.ToolResult) {
		if r.IsError || !strings.Contains(r.Content, "approved-run") {
			t.Errorf("tool result = %+v, want the command's output", r)
		}
	}
	denied := func(t *testing.T, r modeltest.ToolResult) {
		if strings.Contains(r.Content, "approved-run") || !strings.Contains(r.Content, "denied") {
			t.Errorf("tool result = %+v, want a denial and no output", r)
		}
	}
	tests := []struct {
		name       string
		caps       map[string]any
		answer     answerFunc
		never      bool // the client never answers
		viaActions bool // approve through a code action and agentls.approve
		approve    bool // the expected outcome
		extra      string
	}{
		{name: "the request card: agent/requestApproval when the client announced approvals", caps: caps(true, false, true),
			answer: answerWith("agent/requestApproval", map[string]any{"outcome": "selected", "optionId": "allow_once"}), approve: true},
		{name: "the request card: outcome cancelled denies", caps: caps(true, false, true),
			answer: answerWith("agent/requestApproval", map[string]any{"outcome": "cancelled"})},
		{name: "the request card: an option that was not offered denies", caps: caps(true, false, true),
			answer: answerWith("agent/requestApproval", map[string]any{"outcome": "selected", "optionId": "allow_everything"})},
		{name: "the message card: showMessageRequest when the client has window.showMessage", caps: caps(false, false, true),
			answer: answerWith("window/showMessageRequest", map[string]any{"title": "Allow once"}), approve: true},
		{name: "the message card: null denies", caps: caps(false, false, true),
			answer: answerWith("window/showMessageRequest", nil)},
		{name: "the message card: -32601 falls through to the code-action card", caps: caps(false, false, true),
			answer: defaultAnswer, viaActions: true, approve: true},
		{name: "the code-action card: code actions when the client cannot be asked", caps: caps(false, false, false),
			answer: defaultAnswer, viaActions: true, approve: true},
		{name: "timeout denies", caps: caps(true, false, true), extra: "[agent]\napproval_timeout = \"1s\"\n",
			never: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.extra)
			c := e.start(t)
			c.setAnswer(tt.answer)
			if tt.never {
				c.setAnswer(c.never)
			}
			c.initialize(e.root, tt.caps)
			doc := openDoc(t, c, e.root, "main.go", "package main\n")
			scriptCommand(e.model, "approved-run")
			res, errc := c.runAsync(map[string]any{"prompt": "run it", "textDocument": map[string]string{"uri": doc}})
			if tt.viaActions {
				approveViaCodeAction(t, c, doc)
			}
			r := c.await(res, errc)
			if r.StopReason != "end_turn" || r.Text != "all done" {
				t.Errorf("result = %+v, want end_turn with the model's text", r)
			}
			if tt.approve {
				allowed(t, toolResult(t, e.model))
			} else {
				denied(t, toolResult(t, e.model))
			}
		})
	}
}

// answerWith answers one method with a fixed result (others as default).
func answerWith(m string, result any) answerFunc {
	return func(method string, params json.RawMessage) (any, error) {
		if method == m {
			return result, nil
		}
		return defaultAnswer(method, params)
	}
}

// openDoc opens a file in the editor (on disk too) and returns its URI.
func openDoc(t *testing.T, c *testClient, root, name, text string) string {
	t.Helper()
	path := root + "/" + name
	writeFile(t, path, text)
	uri := pathToURI(path)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "go", "version": 1, "text": text}})
	return uri
}

// approveViaCodeAction is the code-action card as an editor without a plugin does it: a
// Warning diagnostic appears on the task's document, the code action list
// starts with the approval actions, running one approves, and the
// diagnostic is cleared.
func approveViaCodeAction(t *testing.T, c *testClient, doc string) {
	t.Helper()
	c.waitFor("an approval diagnostic", func(m message) bool {
		return m.Method == "textDocument/publishDiagnostics" && strings.Contains(string(m.Params), `"source":"agentls"`) &&
			strings.Contains(string(m.Params), doc)
	})
	c.waitFor("the approval message", func(m message) bool {
		return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "approval needed")
	})
	var actions []codeAction
	c.mustCall("textDocument/codeAction", map[string]any{
		"textDocument": map[string]string{"uri": doc},
		"range":        map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}},
		"context":      map[string]any{"diagnostics": []any{}, "triggerKind": 1},
	}, &actions)
	if len(actions) < 2 || !strings.HasPrefix(actions[0].Title, "agentls: Allow once: ") {
		t.Fatalf("code actions = %+v, want the approval actions first", actions)
	}
	// Each title names what would run: `server · tool` for an MCP call,
	// the command line for run_command (two waiting commands must not read
	// alike).
	for _, a := range actions[:2] {
		subject := strings.SplitN(a.Title, ": ", 3)
		if a.Kind != "source" || len(subject) != 3 || !(strings.Contains(subject[2], "echo approved-run") || strings.Contains(subject[2], " · ")) {
			t.Errorf("approval action %q has kind %q, want source, titled `agentls: <option>: <what would run>`", a.Title, a.Kind)
		}
	}
	cmd := actions[0].Command
	if cmd.Command != "agentls.approve" || len(cmd.Arguments) != 2 || cmd.Arguments[1] != "allow_once" {
		t.Fatalf("first approval action's command = %+v, want agentls.approve [id, allow_once]", cmd)
	}
	c.mustCall("workspace/executeCommand", map[string]any{"command": cmd.Command, "arguments": cmd.Arguments}, nil)
	c.waitFor("the approval diagnostic cleared", func(m message) bool {
		return m.Method == "textDocument/publishDiagnostics" && strings.Contains(string(m.Params), `"diagnostics":[]`)
	})
}

func TestMessageCardMethodNotFoundSticksToCodeActionCards(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.initialize(e.root, caps(false, false, true))
	doc := openDoc(t, c, e.root, "main.go", "package main\n")
	for i := 0; i < 2; i++ {
		scriptCommand(e.model, "approved-run")
		res, errc := c.runAsync(map[string]any{"prompt": "run it", "textDocument": map[string]string{"uri": doc}})
		approveViaCodeAction(t, c, doc)
		if r := c.await(res, errc); r.StopReason != "end_turn" {
			t.Fatalf("run %d: %+v", i, r)
		}
		c.mu.Lock()
		c.msgs = nil // the next round must find its own diagnostic
		c.mu.Unlock()
		if i == 0 {
			continue
		}
		if n := len(c.messages("window/showMessageRequest")); n != 0 {
			t.Errorf("after a -32601, the server asked with showMessageRequest again (%d times)", n)
		}
	}
}

func TestResolveApprovalErrors(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	err := c.call("agent/resolveApproval", map[string]string{"approvalId": "a42", "optionId": "allow_once"}, nil)
	if w, ok := err.(*jsonrpc2.Error); !ok || w.Code != jsonrpc2.InvalidParams || !strings.Contains(w.Message, "a42") {
		t.Errorf("resolving an unknown approval: %v, want InvalidParams naming it", err)
	}
	err = c.call("agent/resolveApproval", map[string]string{}, nil)
	if w, ok := err.(*jsonrpc2.Error); !ok || w.Code != jsonrpc2.InvalidParams || !strings.Contains(w.Message, "approvalId") {
		t.Errorf("resolving without an id: %v, want InvalidParams saying approvalId is missing", err)
	}
}
