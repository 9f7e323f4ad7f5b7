package server

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// approvalRecorder answers request cards with a fixed option per kind and
// records each card as sent.
type approvalRecorder struct {
	mu     sync.Mutex
	cards  []map[string]any
	answer map[string]string // kind -> optionId
}

func (r *approvalRecorder) handle(method string, params json.RawMessage) (any, error) {
	if method != "agent/requestApproval" {
		return defaultAnswer(method, params)
	}
	var a map[string]any
	if err := json.Unmarshal(params, &a); err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.cards = append(r.cards, a)
	r.mu.Unlock()
	return map[string]any{"outcome": "selected", "optionId": r.answer[fmt.Sprint(a["kind"])]}, nil
}

func (r *approvalRecorder) card(kind string) map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.cards {
		if a["kind"] == kind {
			return a
		}
	}
	return nil
}

// optionKinds checks an Approval's options: each has an id, a name and a
// kind of the protocol's set; it returns "optionId:kind" in order.
func optionKinds(t *testing.T, a map[string]any) string {
	t.Helper()
	opts, _ := a["options"].([]any)
	var out []string
	for _, o := range opts {
		m, _ := o.(map[string]any)
		kind, _ := m["kind"].(string)
		if m["optionId"] == "" || m["name"] == "" || (kind != "allow_once" && kind != "allow_always" && kind != "reject_once") {
			t.Errorf("option %v: want optionId, name and a kind of allow_once/allow_always/reject_once", m)
		}
		out = append(out, fmt.Sprintf("%v:%v", m["optionId"], kind))
	}
	return strings.Join(out, ",")
}

func TestApprovalCardsShowWhatWouldRun(t *testing.T) {
	files := filepath.Join(t.TempDir(), "fs-card-marker")
	e := newEnv(t, fsServer(t, "fs", files))
	writeFile(t, filepath.Join(e.root, ".agentls", "config.toml"),
		"[mcp.servers.repo]\ncommand = \"sh\"\nargs = [\"-c\", \"echo it's here\"]\nenv = { NODE_OPTIONS = \"--require /tmp/x.js\" }\n")
	c := e.start(t)
	rec := &approvalRecorder{answer: map[string]string{"mcp_launch": "reject_once", "mcp_call": "allow_once"}}
	c.setAnswer(rec.handle)
	c.initialize(e.root, caps(true, false, false))
	c.waitFor("the launch card's denial", func(m message) bool {
		return m.Method == "window/logMessage" && strings.Contains(string(m.Params), "'repo' not started")
	})
	launch := rec.card("mcp_launch")
	detail := fmt.Sprint(launch["detail"])
	for _, want := range []string{`sh -c 'echo it'\''s here'`, `NODE_OPTIONS='--require /tmp/x.js'`, e.root} {
		if !strings.Contains(detail, want) {
			t.Errorf("launch detail %q lacks %q (argv quoted for a shell, every env pair, the cwd)", detail, want)
		}
	}
	if fmt.Sprint(launch["command"]) != "[sh -c echo it's here]" || fmt.Sprint(launch["env"]) != "[[NODE_OPTIONS --require /tmp/x.js]]" ||
		launch["cwd"] != e.root || launch["server"] != "repo" || launch["approvalId"] == "" || launch["title"] == "" {
		t.Errorf("launch card = %v, want command, env pairs, cwd, server, approvalId and title", launch)
	}
	if got := optionKinds(t, launch); !strings.HasPrefix(got, "allow_once:allow_once") || !strings.HasSuffix(got, "reject_once:reject_once") {
		t.Errorf("launch options = %s", got)
	}

	c.waitState("fs", "connected")
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "fs__list_directory", Input: fmt.Sprintf(`{"path":%q}`, files)}}},
		modeltest.Turn{Text: "listed"},
	)
	var r runResult
	c.mustCall("agent/run", map[string]string{"prompt": "list"}, &r)
	call := rec.card("mcp_call")
	if call == nil {
		t.Fatal("no mcp_call card")
	}
	wantArgs := map[string]any{"path": files}
	if call["taskId"] != r.TaskID || call["server"] != "fs" || call["tool"] != "list_directory" ||
		fmt.Sprint(call["arguments"]) != fmt.Sprint(wantArgs) {
		t.Errorf("call card = %v, want taskId %s, server fs, tool list_directory and the arguments", call, r.TaskID)
	}
	head, body, _ := strings.Cut(fmt.Sprint(call["detail"]), "\n")
	var shown map[string]any
	if head != "fs · list_directory" || json.Unmarshal([]byte(body), &shown) != nil || fmt.Sprint(shown) != fmt.Sprint(wantArgs) {
		t.Errorf("call detail = %q, want `fs · list_directory` and the arguments as JSON", call["detail"])
	}
	if got := optionKinds(t, call); got != "allow_once:allow_once,allow_always:allow_always,reject_once:reject_once" {
		t.Errorf("call options = %s", got)
	}
	opts := call["options"].([]any)
	if name := opts[1].(map[string]any)["name"]; name != "Always allow fs__list_directory" {
		t.Errorf("allow_always is named %q, want it to name the tool", name)
	}
}

func TestMessageCardAsksWithAWarningAndOneActionPerOption(t *testing.T) {
	for _, pick := range []string{"Allow once", "Deny"} {
		t.Run(pick, func(t *testing.T) {
			e := newEnv(t, "")
			c := e.start(t)
			var mu sync.Mutex
			var asked map[string]any
			var waiting struct{ Approvals []map[string]any }
			c.setAnswer(func(method string, params json.RawMessage) (any, error) {
				if method != "window/showMessageRequest" {
					return defaultAnswer(method, params)
				}
				mu.Lock()
				defer mu.Unlock()
				_ = json.Unmarshal(params, &asked)
				if err := c.call("agent/approvals", map[string]any{}, &waiting); err != nil {
					return nil, err
				}
				return map[string]string{"title": pick}, nil
			})
			c.initialize(e.root, caps(false, false, true))
			scriptCommand(e.model, "approved-run")
			var r runResult
			c.mustCall("agent/run", map[string]string{"prompt": "run it"}, &r)
			mu.Lock()
			defer mu.Unlock()
			if len(waiting.Approvals) != 1 {
				t.Fatalf("agent/approvals while asked = %v", waiting.Approvals)
			}
			a := waiting.Approvals[0]
			if asked["type"] != float64(2) || asked["message"] != fmt.Sprint(a["title"])+"\n"+fmt.Sprint(a["detail"]) {
				t.Errorf("showMessageRequest = %v, want a Warning (2) with title, newline, detail of %v", asked, a)
			}
			var titles, names []string
			for _, x := range asked["actions"].([]any) {
				titles = append(titles, fmt.Sprint(x.(map[string]any)["title"]))
			}
			for _, o := range a["options"].([]any) {
				names = append(names, fmt.Sprint(o.(map[string]any)["name"]))
			}
			if strings.Join(titles, "|") != strings.Join(names, "|") {
				t.Errorf("actions %q, want one per option titled by its name %q", titles, names)
			}
			ran := strings.Contains(toolResult(t, e.model).Content, "approved-run")
			if ran != (pick == "Allow once") {
				t.Errorf("picking %q: the command ran = %v", pick, ran)
			}
		})
	}
}

func TestCodeActionCardAnswersThroughDenyAndResolveApproval(t *testing.T) {
	for _, how := range []string{"agentls.deny with no argument denies the oldest", "agent/resolveApproval allows"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t, "")
			c := e.start(t)
			c.initialize(e.root, caps(false, false, false))
			doc := openDoc(t, c, e.root, "main.go", "package main\n")
			scriptCommand(e.model, "approved-run")
			res, errc := c.runAsync(map[string]any{"prompt": "run it", "textDocument": map[string]string{"uri": doc}})
			diag := c.waitFor("the approval diagnostic", func(m message) bool {
				return m.Method == "textDocument/publishDiagnostics" && strings.Contains(string(m.Params), `"source":"agentls"`)
			})
			if !strings.Contains(string(diag.Params), `"severity":2`) {
				t.Errorf("approval diagnostic %s, want a Warning", diag.Params)
			}
			var out any = "untouched"
			if strings.HasPrefix(how, "agentls.deny") {
				c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.deny", "arguments": []any{}}, &out)
			} else {
				var waiting struct{ Approvals []struct{ ApprovalID string } }
				c.mustCall("agent/approvals", map[string]any{}, &waiting)
				c.mustCall("agent/resolveApproval", map[string]string{"approvalId": waiting.Approvals[0].ApprovalID, "optionId": "allow_once"}, &out)
			}
			if out != nil && out != "untouched" {
				t.Errorf("answered %v, want null", out)
			}
			c.waitFor("the diagnostic cleared", func(m message) bool {
				return m.Method == "textDocument/publishDiagnostics" && strings.Contains(string(m.Params), `"diagnostics":[]`)
			})
			c.await(res, errc)
			ran := strings.Contains(toolResult(t, e.model).Content, "approved-run")
			if ran != strings.HasPrefix(how, "agent/resolveApproval") {
				t.Errorf("%s: the command ran = %v", how, ran)
			}
		})
	}
}

// TestWriteCardCarriesTheWholeProposedFile: a write approval over the request card
// carries diff {uri, newText, exists} (the whole file after the write, tabs
// and all), so the VS Code extension can open a real diff editor; it is the
// same in agent/approvals while the card waits. (Denied here: this test
// client applies no edits.)
func TestWriteCardCarriesTheWholeProposedFile(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	const proposed = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"
	var mu sync.Mutex
	var asked map[string]any
	var waiting struct{ Approvals []map[string]any }
	c.setAnswer(func(method string, params json.RawMessage) (any, error) {
		if method != "agent/requestApproval" {
			return defaultAnswer(method, params)
		}
		mu.Lock()
		defer mu.Unlock()
		_ = json.Unmarshal(params, &asked)
		if err := c.call("agent/approvals", map[string]any{}, &waiting); err != nil {
			return nil, err
		}
		return map[string]string{"outcome": "selected", "optionId": "reject_once"}, nil
	})
	c.initialize(e.root, caps(true, false, false))
	uri := openDoc(t, c, e.root, "main.go", "package main\n")
	input, _ := json.Marshal(map[string]string{"path": "main.go", "content": proposed})
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "write_file", Input: string(input)}}},
		modeltest.Turn{Text: "written"},
	)
	var r runResult
	c.mustCall("agent/run", map[string]string{"prompt": "write it"}, &r)
	mu.Lock()
	defer mu.Unlock()
	want := map[string]any{"uri": uri, "newText": proposed, "exists": true}
	if asked["kind"] != "write" || fmt.Sprint(asked["diff"]) != fmt.Sprint(want) {
		t.Errorf("write card = %v, want kind write and diff %v", asked, want)
	}
	if len(waiting.Approvals) != 1 || fmt.Sprint(waiting.Approvals[0]["diff"]) != fmt.Sprint(want) {
		t.Errorf("agent/approvals while asked = %v, want the card with diff %v", waiting.Approvals, want)
	}
	if !toolResult(t, e.model).IsError {
		t.Errorf("the denied write did not fail: %v", toolResult(t, e.model).Content)
	}
}
