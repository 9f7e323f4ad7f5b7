package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// The editor extras (docs/protocol.md section 9): tabs, terminals, tasks
// and every diagnostic the editor holds, each through the agent/editor/*
// request of what the editor announced. send_to_terminal and run_task run
// code that no confinement of agentls reaches, so they always ask
// (agent.AskAlways); the rest read the editor or close what loses nothing.

// Read terminal output: the default and the most an outside agent gets.
const (
	readTerminalDefault = 16 << 10
	readTerminalMax     = 1 << 20
)

// ask sends the editor the declared request m with p and decodes its answer.
func ask[P, R any](ctx context.Context, ed Editor, m wire.Request[P, R], p P) (R, error) {
	var r R
	err := ed.Request(ctx, m.Method, p, &r)
	return r, err
}

func needsTabs(o Offers) bool      { return o.Extras.Tabs }
func needsTerminals(o Offers) bool { return o.Extras.Terminals }
func needsTasks(o Offers) bool     { return o.Extras.Tasks }

// extraTools are the tools of the editor extras.
func (s *Server) extraTools() []tool {
	obj := func(props, required string) json.RawMessage {
		if required == "" {
			return json.RawMessage(`{"type":"object","properties":{` + props + `}}`)
		}
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":[` + required + `]}`)
	}
	return []tool{
		{def: &sdk.Tool{Name: "list_tabs", Title: "The editor's tabs", Description: "The editor's open tabs on files inside the workspace folders (JSON: path, label, active, dirty: unsaved changes, group).",
			InputSchema: emptySchema, Annotations: annotations(true)}, needs: needsTabs, missing: "the editor to announce its tabs",
			run: s.listTabs},
		{def: &sdk.Tool{Name: "close_tab", Title: "Close a tab", Description: "Close the editor's tab of a file inside the workspace folders. A tab with unsaved changes is never closed (an error result says so).",
			InputSchema: obj(`"path":{"type":"string","description":"the file, relative to the workspace folder or absolute inside it"}`, `"path"`), Annotations: annotations(false)},
			needs: needsTabs, missing: "the editor to announce its tabs", run: s.closeTab},
		{def: &sdk.Tool{Name: "list_terminals", Title: "The editor's agentls terminals", Description: "The terminals agentls created in the editor (JSON: id, name); the user's own terminals are never listed, read or written.",
			InputSchema: emptySchema, Annotations: annotations(true)}, needs: needsTerminals, missing: "the editor to announce terminals",
			run: s.listTerminals},
		{def: &sdk.Tool{Name: "create_terminal", Title: "Create a terminal", Description: "Open a new terminal in the editor (its shell; nothing is typed) in cwd, a folder inside the workspace (the first workspace folder when left out). Answers its id for send_to_terminal and read_terminal.",
			InputSchema: obj(`"name":{"type":"string"},"cwd":{"type":"string"}`, ""), Annotations: annotations(false)},
			needs: needsTerminals, missing: "the editor to announce terminals", run: s.createTerminal},
		{def: &sdk.Tool{Name: "send_to_terminal", Title: "Type into a terminal (asks)", Description: "Type text and Enter into a terminal create_terminal made. It runs whatever the text says in the editor's own shell, which agentls cannot confine: the user is always asked, in every mode.",
			InputSchema: obj(`"id":{"type":"string"},"text":{"type":"string"}`, `"id","text"`), Annotations: annotations(false)},
			needs: func(o Offers) bool { return o.Extras.Terminals && o.Ask }, missing: "the editor to announce terminals and someone to answer its card",
			run: s.sendToTerminal},
		{def: &sdk.Tool{Name: "read_terminal", Title: "Read a terminal", Description: "The latest output of a terminal create_terminal made: at most max_bytes (default 16384, at most 1048576) from the end, secrets redacted.",
			InputSchema: obj(`"id":{"type":"string"},"max_bytes":{"type":"integer"}`, `"id"`), Annotations: annotations(true)},
			needs: needsTerminals, missing: "the editor to announce terminals", run: s.readTerminal},
		{def: &sdk.Tool{Name: "list_tasks", Title: "The workspace's tasks", Description: "The tasks the editor can run for this workspace (JSON: name, source, detail: the command line or definition).",
			InputSchema: emptySchema, Annotations: annotations(true)}, needs: needsTasks, missing: "the editor to announce tasks",
			run: s.listTasks},
		{def: &sdk.Tool{Name: "run_task", Title: "Run a task (asks)", Description: "Run one of list_tasks's tasks in the editor's task runner and answer its exit code when it ends (at once for a background task). The user is always asked, in every mode; source is needed only when two tasks share a name.",
			InputSchema: obj(`"name":{"type":"string"},"source":{"type":"string"}`, `"name"`), Annotations: annotations(false)},
			needs: func(o Offers) bool { return o.Extras.Tasks && o.Ask }, missing: "the editor to announce tasks and someone to answer its card",
			run: s.runTask},
	}
}

// notOffered answers a call of a tool this editor does not offer (it is
// not listed), saying so, where the SDK would only say it is unknown.
func (s *Server) notOffered(listed []tool) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			ctr, ok := req.(*sdk.CallToolRequest)
			if method != "tools/call" || !ok || ctr.Params == nil {
				return next(ctx, method, req)
			}
			name := ctr.Params.Name
			for _, t := range listed {
				if t.def.Name == name {
					return next(ctx, method, req)
				}
			}
			for _, t := range s.allTools() {
				if t.def.Name == name {
					ed := s.ed.Name()
					if ed == "" {
						ed = "no editor"
					}
					why := t.missing
					if why == "" {
						why = "what this server does not have"
					}
					return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{
						Text: fmt.Sprintf("ERROR: the editor here (%s) does not offer %s: it needs %s, so it is not listed", ed, name, why)}}}, nil
				}
			}
			return next(ctx, method, req)
		}
	}
}

func (s *Server) listTabs(ctx context.Context, _ *conn, _ string, _ json.RawMessage) (string, bool) {
	r, err := ask(ctx, s.ed, wire.EditorTabs, wire.NoParams{})
	if err != nil {
		return "ERROR: the editor did not list its tabs: " + err.Error(), true
	}
	out := []wire.EditorTab{}
	for _, t := range r.Tabs {
		if t.Path != "" && s.within(t.Path) {
			out = append(out, t)
		}
	}
	return jsonText(out)
}

func (s *Server) closeTab(ctx context.Context, _ *conn, _ string, in json.RawMessage) (string, bool) {
	var a struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(in, &a); err != nil || a.Path == "" {
		return `ERROR: path is required: give {"path": "<a file in the workspace>"}`, true
	}
	p := s.abs(a.Path)
	if !s.within(p) {
		return fmt.Sprintf("ERROR: %s is not a file inside the workspace folders (%s): close_tab closes only their tabs", a.Path, strings.Join(s.ed.Folders(), ", ")), true
	}
	r, err := ask(ctx, s.ed, wire.EditorCloseTab, wire.EditorCloseTabParams{Path: p})
	switch {
	case err != nil:
		return "ERROR: the editor did not close the tab of " + a.Path + ": " + err.Error(), true
	case !r.Closed:
		why := r.Reason
		if why == "" {
			why = "it gave no reason"
		}
		return "ERROR: the editor did not close the tab of " + a.Path + ": " + trust.VisibleText(why), true
	}
	return "closed the tab of " + p, false
}

func (s *Server) listTerminals(ctx context.Context, _ *conn, _ string, _ json.RawMessage) (string, bool) {
	r, err := ask(ctx, s.ed, wire.EditorTerminals, wire.NoParams{})
	if err != nil {
		return "ERROR: the editor did not list its terminals: " + err.Error(), true
	}
	if r.Terminals == nil {
		r.Terminals = []wire.EditorTerminal{}
	}
	return jsonText(r.Terminals)
}

func (s *Server) createTerminal(ctx context.Context, _ *conn, _ string, in json.RawMessage) (string, bool) {
	var a struct {
		Name string `json:"name"`
		Cwd  string `json:"cwd"`
	}
	if err := json.Unmarshal(in, &a); err != nil {
		return `ERROR: the arguments are {"name"?: "<a name>", "cwd"?: "<a folder in the workspace>"}: ` + err.Error(), true
	}
	folders := s.ed.Folders()
	cwd := ""
	if len(folders) > 0 {
		cwd = folders[0]
	}
	if a.Cwd != "" {
		cwd = s.abs(a.Cwd)
	}
	if st, err := os.Stat(cwd); cwd == "" || err != nil || !st.IsDir() || !s.within(cwd) {
		return fmt.Sprintf("ERROR: cwd %q is not a folder inside the workspace folders (%s)", a.Cwd, strings.Join(folders, ", ")), true
	}
	if a.Name == "" {
		a.Name = "agentls"
	}
	r, err := ask(ctx, s.ed, wire.EditorCreateTerminal, wire.EditorCreateTerminalParams{Name: trust.Visible(a.Name), Cwd: cwd})
	if err != nil {
		return "ERROR: the editor did not create a terminal: " + err.Error(), true
	}
	if r.ID == "" {
		return "ERROR: the editor created a terminal but gave no id", true
	}
	return jsonText(r)
}

// terminal is the agentls terminal id names, or why there is none.
func (s *Server) terminal(ctx context.Context, id string) (wire.EditorTerminal, string) {
	r, err := ask(ctx, s.ed, wire.EditorTerminals, wire.NoParams{})
	if err != nil {
		return wire.EditorTerminal{}, "ERROR: the editor did not list its terminals: " + err.Error()
	}
	var ids []string
	for _, t := range r.Terminals {
		if t.ID == id {
			return t, ""
		}
		ids = append(ids, t.ID)
	}
	return wire.EditorTerminal{}, fmt.Sprintf("ERROR: no terminal of agentls has the id %q (they are %v; create_terminal makes one)", id, ids)
}

func (s *Server) sendToTerminal(ctx context.Context, c *conn, client string, in json.RawMessage) (string, bool) {
	var a struct {
		ID   string  `json:"id"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(in, &a); err != nil || a.ID == "" || a.Text == nil {
		return `ERROR: id and text are required: give {"id": "<a terminal of list_terminals>", "text": "<what to type; Enter follows>"}`, true
	}
	term, why := s.terminal(ctx, a.ID)
	if why != "" {
		return why, true
	}
	text := *a.Text
	res := s.ed.Call(ctx, agent.ExternalCall{Client: client, SessionID: c.session, Tool: "send_to_terminal", Input: in, Asks: &agent.AskAlways{
		Title:  "Type into the editor's terminal " + trust.Visible(term.Name) + "?",
		Detail: text + "\n\n(typed into the terminal " + term.Name + ", then Enter: it runs in the editor's shell, which agentls does not confine)",
		Run: func(ctx context.Context) (string, error) {
			if _, err := ask(ctx, s.ed, wire.EditorSendTerminal, wire.EditorSendTerminalParams{ID: term.ID, Text: text}); err != nil {
				return "", fmt.Errorf("the editor did not type into the terminal: %w", err)
			}
			return "typed into the terminal " + term.ID + "; read_terminal shows its output", nil
		}}})
	return res.Text, res.IsError
}

func (s *Server) readTerminal(ctx context.Context, _ *conn, _ string, in json.RawMessage) (string, bool) {
	var a struct {
		ID       string `json:"id"`
		MaxBytes int    `json:"max_bytes"`
	}
	if err := json.Unmarshal(in, &a); err != nil || a.ID == "" {
		return `ERROR: id is required: give {"id": "<a terminal of list_terminals>", "max_bytes"?: N}`, true
	}
	switch {
	case a.MaxBytes <= 0:
		a.MaxBytes = readTerminalDefault
	case a.MaxBytes > readTerminalMax:
		a.MaxBytes = readTerminalMax
	}
	if _, why := s.terminal(ctx, a.ID); why != "" {
		return why, true
	}
	r, err := ask(ctx, s.ed, wire.EditorReadTerminal, wire.EditorReadTerminalParams{ID: a.ID, MaxBytes: a.MaxBytes})
	if err != nil {
		return "ERROR: the editor did not read the terminal: " + err.Error(), true
	}
	text := r.Text
	if len(text) > a.MaxBytes { // the editor's answer, held to what was asked
		cut := len(text) - a.MaxBytes
		for cut < len(text) && text[cut]&0xC0 == 0x80 {
			cut++
		}
		text = text[cut:]
	}
	return trust.Redact(text), false
}

func (s *Server) listTasks(ctx context.Context, _ *conn, _ string, _ json.RawMessage) (string, bool) {
	r, err := ask(ctx, s.ed, wire.EditorTasks, wire.NoParams{})
	if err != nil {
		return "ERROR: the editor did not list its tasks: " + err.Error(), true
	}
	if r.Tasks == nil {
		r.Tasks = []wire.EditorTask{}
	}
	return jsonText(r.Tasks)
}

func (s *Server) runTask(ctx context.Context, c *conn, client string, in json.RawMessage) (string, bool) {
	var a struct {
		Name   string `json:"name"`
		Source string `json:"source"`
	}
	if err := json.Unmarshal(in, &a); err != nil || a.Name == "" {
		return `ERROR: name is required: give {"name": "<a task of list_tasks>", "source"?: "<its source>"}`, true
	}
	r, err := ask(ctx, s.ed, wire.EditorTasks, wire.NoParams{})
	if err != nil {
		return "ERROR: the editor did not list its tasks: " + err.Error(), true
	}
	var found []wire.EditorTask
	var names []string
	for _, t := range r.Tasks {
		names = append(names, t.Name)
		if t.Name == a.Name && (a.Source == "" || t.Source == a.Source) {
			found = append(found, t)
		}
	}
	switch {
	case len(found) == 0:
		return fmt.Sprintf("ERROR: the editor has no task %q%s (its tasks: %v)", a.Name, map[bool]string{true: " of " + a.Source}[a.Source != ""], names), true
	case len(found) > 1:
		var srcs []string
		for _, t := range found {
			srcs = append(srcs, t.Source)
		}
		return fmt.Sprintf("ERROR: %d tasks are named %q: give source, one of %v", len(found), a.Name, srcs), true
	}
	task := found[0]
	res := s.ed.Call(ctx, agent.ExternalCall{Client: client, SessionID: c.session, Tool: "run_task", Input: in, Asks: &agent.AskAlways{
		Title:  "Run the editor's task " + trust.Visible(task.Name) + " (" + trust.Visible(task.Source) + ")?",
		Detail: task.Detail + "\n\n(the task " + task.Name + " of " + task.Source + ", run by the editor's task runner, which agentls does not confine)",
		Run: func(ctx context.Context) (string, error) {
			r, err := ask(ctx, s.ed, wire.EditorRunTask, wire.EditorRunTaskParams{Name: task.Name, Source: task.Source})
			if err != nil {
				return "", fmt.Errorf("the editor did not run the task: %w", err)
			}
			if r.ExitCode == nil {
				return "the task " + task.Name + " runs in the background (the editor gives no exit code for it)", nil
			}
			return fmt.Sprintf("the task %s ended with exit code %d", task.Name, *r.ExitCode), nil
		}}})
	return res.Text, res.IsError
}
