package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/mcpserve"
	"github.com/agentls/agentls/mcpserve/mcpservetest"
	"github.com/agentls/agentls/wire"
)

// extrasEditor is the editor side of a raw client: it answers the
// agent/editor/* requests and the cards agentls sends, as an editor
// would, and keeps what it was sent.
type extrasEditor struct {
	root    string
	replies chan rawFrame // agentls's answers to the raw client's requests

	mu        sync.Mutex
	requests  []rawFrame // every agent/editor/* request, in order
	cards     []wire.Approval
	answers   []string // the options the next cards are answered with
	terminals []wire.EditorTerminal
	typed     []string // what sendTerminal typed
	ran       []string // the tasks runTask ran
	closed    []string
}

// serve answers c's requests until agentls exits; done is closed then.
func (ed *extrasEditor) serve(c *rawClient, done chan<- struct{}) {
	defer close(done)
	for f := range c.frames {
		if f.Method == "" {
			select {
			case ed.replies <- f:
			default:
			}
			continue
		}
		if len(f.ID) == 0 {
			continue
		}
		result, errMsg := ed.answer(f)
		if errMsg != "" {
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":%q}}`, f.ID, errMsg))
			continue
		}
		b, _ := json.Marshal(result)
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, f.ID, b))
	}
}

func (ed *extrasEditor) answer(f rawFrame) (any, string) {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if strings.HasPrefix(f.Method, "agent/editor/") {
		ed.requests = append(ed.requests, f)
	}
	switch f.Method {
	case "agent/requestApproval":
		var a wire.Approval
		json.Unmarshal(f.Params, &a)
		ed.cards = append(ed.cards, a)
		opt := "reject_once"
		if len(ed.answers) > 0 {
			opt, ed.answers = ed.answers[0], ed.answers[1:]
		}
		return wire.RequestApprovalResult{Outcome: "selected", OptionID: opt}, ""
	case "agent/editor/tabs":
		return wire.EditorTabsResult{Tabs: []wire.EditorTab{
			{Path: filepath.Join(ed.root, "a.txt"), Label: "a.txt", Active: true, Group: 1},
			{Path: filepath.Join(ed.root, "b.txt"), Label: "b.txt", Dirty: true, Group: 1},
			{Path: "/etc/hostname", Label: "hostname", Group: 2},
			{Path: "", Label: "Welcome", Group: 2},
		}}, ""
	case "agent/editor/closeTab":
		var p wire.EditorCloseTabParams
		json.Unmarshal(f.Params, &p)
		if filepath.Base(p.Path) == "b.txt" {
			return wire.EditorCloseTabResult{Closed: false, Reason: "b.txt has unsaved changes"}, ""
		}
		ed.closed = append(ed.closed, p.Path)
		return wire.EditorCloseTabResult{Closed: true}, ""
	case "agent/editor/terminals":
		return wire.EditorTerminalsResult{Terminals: slices.Clone(ed.terminals)}, ""
	case "agent/editor/createTerminal":
		var p wire.EditorCreateTerminalParams
		json.Unmarshal(f.Params, &p)
		id := fmt.Sprintf("term-%d", len(ed.terminals)+1)
		ed.terminals = append(ed.terminals, wire.EditorTerminal{ID: id, Name: p.Name})
		return wire.EditorTerminalID{ID: id}, ""
	case "agent/editor/sendTerminal":
		var p wire.EditorSendTerminalParams
		json.Unmarshal(f.Params, &p)
		ed.typed = append(ed.typed, p.ID+": "+p.Text)
		return wire.Empty{}, ""
	case "agent/editor/readTerminal":
		return wire.EditorReadTerminalResult{Text: "$ env | grep TOKEN\nGITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n$ "}, ""
	case "agent/editor/tasks":
		return wire.EditorTasksResult{Tasks: []wire.EditorTask{{Name: "build", Source: "Workspace", Detail: "go build ./..."}}}, ""
	case "agent/editor/runTask":
		var p wire.EditorRunTaskParams
		json.Unmarshal(f.Params, &p)
		ed.ran = append(ed.ran, p.Source+"/"+p.Name)
		code := 3
		return wire.EditorRunTaskResult{ExitCode: &code}, ""
	case "agent/editor/diagnostics":
		d := func(msg, source string) json.RawMessage {
			return json.RawMessage(fmt.Sprintf(`{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"severity":1,"message":%q,"source":%q}`, msg, source))
		}
		return wire.EditorDiagnosticsResult{Files: []wire.EditorFileDiagnostics{
			{Path: filepath.Join(ed.root, "a.txt"), Diagnostics: []json.RawMessage{d("unused variable x", "another-ls")}},
			{Path: "/etc/hostname", Diagnostics: []json.RawMessage{d("outside the workspace", "another-ls")}},
		}}, ""
	case "window/workDoneProgress/create":
		return nil, ""
	}
	return nil, ""
}

func (ed *extrasEditor) snapshot() (reqs []string, cards []wire.Approval, typed, ran, closed []string) {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	for _, r := range ed.requests {
		reqs = append(reqs, r.Method)
	}
	return reqs, slices.Clone(ed.cards), slices.Clone(ed.typed), slices.Clone(ed.ran), slices.Clone(ed.closed)
}

func (ed *extrasEditor) answerNext(opts ...string) {
	ed.mu.Lock()
	ed.answers = append(ed.answers, opts...)
	ed.mu.Unlock()
}

// startExtrasSession runs a real `agentls serve` with [serve] mcp = true
// for an editor announcing extras (its capabilities.experimental.agentls),
// the raw client answering as ed, and connects the official MCP SDK's
// client, named claude-code, over Streamable HTTP.
func startExtrasSession(t *testing.T, agentlsCaps string) (*rawClient, *extrasEditor, *sdk.ClientSession) {
	t.Helper()
	c, ed, connect := startExtrasEditor(t, agentlsCaps)
	return c, ed, connect("claude-code", "", nil)
}

// startExtrasEditor is startExtrasSession with a way to connect SDK
// clients as the test likes: named name, at revision version ("" the
// SDK's newest), with opts.
func startExtrasEditor(t *testing.T, agentlsCaps string) (*rawClient, *extrasEditor, func(name, version string, opts *sdk.ClientOptions) *sdk.ClientSession) {
	t.Helper()
	e := newEnv(t, "[serve]\nmcp = true\n")
	root, _ := filepath.EvalSymlinks(e.root)
	for _, f := range []string{"a.txt", "b.txt"} {
		testenv.WriteFile(t, filepath.Join(root, f), f+"\n")
	}
	done := make(chan struct{})
	t.Cleanup(func() { <-done }) // runs after agentls exited (cleanups run last first)
	c := startRawIn(t, e, root)
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":%q,"clientInfo":{"name":"raw-editor"},"capabilities":{"experimental":{"agentls":%s}}}}`, pathToURI(root), agentlsCaps))
	if r := c.reply("1"); r.Error != nil {
		t.Fatalf("initialize: %s", r.Error.Message)
	}
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	ed := &extrasEditor{root: root, replies: make(chan rawFrame, 16)}
	go ed.serve(c, done)

	state := filepath.Join(e.state, "agentls")
	var ep mcpserve.Endpoint
	deadline := time.Now().Add(waitLimit)
	for {
		var err error
		if ep, err = mcpserve.Find(state, root); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the editor session published no endpoint: %v; stderr:\n%s", err, c.stderrText())
		}
		time.Sleep(20 * time.Millisecond)
	}
	token, err := ep.ReadToken()
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return c, ed, func(name, version string, opts *sdk.ClientOptions) *sdk.ClientSession {
		t.Helper()
		return mcpservetest.Connect(t, &sdk.StreamableClientTransport{Endpoint: ep.URL, HTTPClient: &http.Client{Transport: mcpservetest.Bearer{Token: token, Next: tr}}}, name, version, opts)
	}
}

// setMode sets the mode of the sessions not set since (the MCP
// connection's among them) and waits for agentls's answer.
func (ed *extrasEditor) setMode(t *testing.T, c *rawClient, id int, mode wire.Mode) {
	t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"agent/setMode","params":{"mode":%q}}`, id, mode))
	deadline := time.After(waitLimit)
	for {
		select {
		case f := <-ed.replies:
			if string(f.ID) != fmt.Sprint(id) {
				continue
			}
			if f.Error != nil {
				t.Fatalf("agent/setMode %s: %s", mode, f.Error.Message)
			}
			return
		case <-deadline:
			t.Fatalf("no answer to agent/setMode %s", mode)
		}
	}
}

var extraToolNames = []string{"list_tabs", "close_tab", "list_terminals", "create_terminal", "send_to_terminal", "read_terminal", "list_tasks", "run_task"}

// TestMCPServeEditorExtras is issue 29's editor extras against a real
// agentls serve whose editor (a raw LSP client) announces every extra:
// each tool asks the editor the request of the contract, paths stay inside
// the workspace folders, a dirty tab is refused, read_terminal's output is
// redacted, get_diagnostics gives another language server's diagnostics,
// and send_to_terminal and run_task always ask: in autopilot, with a saved
// rule for the very command, never offering "always", refused in plan mode.
func TestMCPServeEditorExtras(t *testing.T) {
	c, ed, cs := startExtrasSession(t, `{"approvals":true,"editor":{"tabs":true,"terminals":true,"tasks":true,"diagnostics":true}}`)
	names := mcpservetest.Tools(t, cs)
	for _, want := range append(slices.Clone(extraToolNames), "get_diagnostics") {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	call := func(name string, args map[string]any, wantErr bool) string {
		t.Helper()
		text, isErr := mcpservetest.Call(t, cs, name, args)
		if isErr != wantErr {
			t.Errorf("%s(%v) = %q, isError %v, want %v", name, args, text, isErr, wantErr)
		}
		return text
	}

	// Tabs: only those of files inside the workspace; a dirty one is refused.
	tabs := call("list_tabs", nil, false)
	var listed []wire.EditorTab
	if err := json.Unmarshal([]byte(tabs), &listed); err != nil || len(listed) != 2 || listed[0].Label != "a.txt" || !listed[0].Active || !listed[1].Dirty {
		t.Errorf("list_tabs = %s, %v; want a.txt (active) and b.txt (dirty), nothing outside the workspace", tabs, err)
	}
	if text := call("close_tab", map[string]any{"path": "b.txt"}, true); !strings.Contains(text, "unsaved changes") {
		t.Errorf("close_tab of the dirty tab = %q, want the editor's refusal", text)
	}
	call("close_tab", map[string]any{"path": "a.txt"}, false)
	if text := call("close_tab", map[string]any{"path": "/etc/hostname"}, true); !strings.Contains(text, "not a file inside the workspace") {
		t.Errorf("close_tab outside the workspace = %q", text)
	}

	// Terminals.
	if text := call("create_terminal", map[string]any{"cwd": "/etc"}, true); !strings.Contains(text, "not a folder inside the workspace") {
		t.Errorf("create_terminal in /etc = %q", text)
	}
	created := call("create_terminal", map[string]any{"name": "build"}, false)
	var term wire.EditorTerminalID
	if err := json.Unmarshal([]byte(created), &term); err != nil || term.ID == "" {
		t.Fatalf("create_terminal = %q, %v; want its id", created, err)
	}
	if text := call("list_terminals", nil, false); !strings.Contains(text, term.ID) || !strings.Contains(text, `"build"`) {
		t.Errorf("list_terminals = %s, want %s named build", text, term.ID)
	}
	if text := call("read_terminal", map[string]any{"id": term.ID}, false); strings.Contains(text, "ghp_aBcD") || !strings.Contains(text, "$ env | grep TOKEN\n[REDACTED]") {
		t.Errorf("read_terminal = %q, want the output with the token redacted", text)
	}
	if text := call("send_to_terminal", map[string]any{"id": "nope", "text": "ls"}, true); !strings.Contains(text, "no terminal of agentls") {
		t.Errorf("send_to_terminal to an unknown terminal = %q", text)
	}

	// A saved rule allowing exactly this command, from run_command's card:
	// run_command of it asks no more.
	ed.answerNext("allow_always")
	call("run_command", map[string]any{"command": "echo from-the-rule"}, false)
	call("run_command", map[string]any{"command": "echo from-the-rule"}, false)
	if _, cards, _, _, _ := ed.snapshot(); len(cards) != 1 {
		t.Fatalf("run_command showed %d cards, want 1 (then the saved rule allows it): %+v", len(cards), cards)
	}
	// The rule does not cover send_to_terminal of the same text, nor does
	// autopilot: it asks.
	ed.setMode(t, c, 50, wire.ModeAutopilot)
	ed.answerNext("allow_once", "reject_once")
	if text := call("send_to_terminal", map[string]any{"id": term.ID, "text": "echo from-the-rule"}, false); !strings.Contains(text, "typed into the terminal") {
		t.Errorf("allowed send_to_terminal = %q", text)
	}
	if text := call("send_to_terminal", map[string]any{"id": term.ID, "text": "rm -rf made.txt"}, true); !strings.Contains(text, "denied") {
		t.Errorf("declined send_to_terminal = %q", text)
	}

	// Tasks.
	if text := call("list_tasks", nil, false); !strings.Contains(text, `"go build ./..."`) {
		t.Errorf("list_tasks = %s", text)
	}
	if text := call("run_task", map[string]any{"name": "test"}, true); !strings.Contains(text, "no task") {
		t.Errorf("run_task of an unknown task = %q", text)
	}
	ed.answerNext("allow_once")
	if text := call("run_task", map[string]any{"name": "build"}, false); !strings.Contains(text, "exit code 3") {
		t.Errorf("run_task = %q, want the exit code the editor answered", text)
	}

	// Diagnostics: the editor's own, of every source, inside the workspace.
	if text := call("get_diagnostics", nil, false); !strings.Contains(text, "unused variable x") || !strings.Contains(text, "another-ls") || strings.Contains(text, "outside the workspace") {
		t.Errorf("get_diagnostics = %s, want another server's diagnostic of a.txt and nothing outside the workspace", text)
	}

	// Plan mode refuses both without a card.
	_, before, _, _, _ := ed.snapshot()
	ed.setMode(t, c, 51, wire.ModePlan)
	if text := call("send_to_terminal", map[string]any{"id": term.ID, "text": "ls"}, true); !strings.Contains(text, "plan mode") {
		t.Errorf("send_to_terminal in plan mode = %q", text)
	}
	if text := call("run_task", map[string]any{"name": "build"}, true); !strings.Contains(text, "plan mode") {
		t.Errorf("run_task in plan mode = %q", text)
	}

	reqs, cards, typed, ran, closed := ed.snapshot()
	if len(cards) != len(before) {
		t.Errorf("plan mode showed %d cards, want none: %+v", len(cards)-len(before), cards[len(before):])
	}
	if !slices.Equal(typed, []string{term.ID + ": echo from-the-rule"}) {
		t.Errorf("the editor typed %q, want only the allowed text", typed)
	}
	if !slices.Equal(ran, []string{"Workspace/build"}) {
		t.Errorf("the editor ran %q, want only the allowed task", ran)
	}
	if len(closed) != 1 || filepath.Base(closed[0]) != "a.txt" {
		t.Errorf("the editor closed %q, want a.txt only", closed)
	}
	if n := strings.Count(strings.Join(reqs, " "), "agent/editor/closeTab"); n != 2 {
		t.Errorf("agentls sent closeTab %d times, want 2 (the dirty tab and a.txt; never the file outside): %v", n, reqs)
	}
	// The cards: run_command's (allow_always), send_to_terminal's twice,
	// run_task's; each of the three always-asking ones names the client,
	// shows what runs and offers no "always".
	if len(cards) != 4 {
		t.Fatalf("%d cards, want 4 (run_command, send_to_terminal twice, run_task): %+v", len(cards), cards)
	}
	for i, want := range []string{"echo from-the-rule", "rm -rf made.txt", "go build ./..."} {
		a := cards[i+1]
		var opts []string
		for _, o := range a.Options {
			opts = append(opts, o.OptionID)
		}
		if a.Kind != wire.ApprovalCommand || !strings.Contains(a.RequestedBy, "claude-code (MCP, HTTP") || !strings.Contains(a.Detail, want) ||
			!slices.Equal(opts, []string{"allow_once", "reject_once"}) {
			t.Errorf("card %d = %+v, want a command card requested by claude-code showing %q, options allow_once and reject_once only", i+2, a, want)
		}
	}
}

// TestMCPServeEditorAnnouncingNoExtrasListsNone: an editor that announces
// no extras (Helix) gets none of their tools listed, a call to one is an
// error saying the editor does not offer it, and agentls never sends it an
// agent/editor/* request; get_diagnostics keeps to what the editor sent.
func TestMCPServeEditorAnnouncingNoExtrasListsNone(t *testing.T) {
	_, ed, cs := startExtrasSession(t, `{"approvals":true}`)
	names := mcpservetest.Tools(t, cs)
	for _, n := range extraToolNames {
		if slices.Contains(names, n) {
			t.Errorf("tools %v list %s, which the editor did not announce", names, n)
		}
	}
	if !slices.Contains(names, "get_diagnostics") || !slices.Contains(names, "run_command") {
		t.Fatalf("tools %v lack the tools every editor session has", names)
	}
	for _, n := range []string{"list_tabs", "send_to_terminal", "run_task"} {
		text, isErr := mcpservetest.Call(t, cs, n, map[string]any{"id": "1", "text": "ls", "name": "build"})
		if !isErr || !strings.Contains(text, "does not offer "+n) {
			t.Errorf("%s = %q, isError %v; want an error saying the editor does not offer it", n, text, isErr)
		}
	}
	if text, isErr := mcpservetest.Call(t, cs, "get_diagnostics", nil); isErr || strings.TrimSpace(text) != "[]" {
		t.Errorf("get_diagnostics = %q, isError %v; want the none the editor sent", text, isErr)
	}
	if reqs, cards, _, _, _ := ed.snapshot(); len(reqs) != 0 || len(cards) != 0 {
		t.Errorf("agentls sent the editor %v and %d cards, want nothing", reqs, len(cards))
	}
}
