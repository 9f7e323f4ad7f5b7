package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// An outside agent (Claude Code, any MCP client agentls did not start)
// reaches the editor through `agentls mcp serve` (package mcpserve). Each of
// its calls runs here, through the path a call of agentls's own model takes
// (callTool: the tool's plan and gate, the mode, saved rules, hooks, the
// approval card, redaction), so it can never get more than the same call
// from agentls's own agent would. The card says who asks.

// ExternalCall is one tool call an outside MCP client made.
type ExternalCall struct {
	// Client names who asks, as every card of the call shows it: the
	// client's own name (its clientInfo, untrusted text) and the
	// connection it came over. Required.
	Client string
	// SessionID is the connection's session: its mode and its transcript
	// (every call is written there). Required; see NewExternalSession.
	SessionID string
	// Tool is one of ExternalToolNames; Input its arguments.
	Tool  string
	Input json.RawMessage
	// Asks, when set, is what the call does instead of a core tool: an
	// action of the editor that no confinement of agentls reaches (its
	// own terminal, its task runner). Tool names it and must not be one
	// of ExternalToolNames.
	Asks *AskAlways
}

// AskAlways is an outside call that runs only after the user allows its
// card, in every mode (autopilot too): Decide never lets it go on
// unasked, no saved rule covers it, its card offers no "always", and
// plan mode refuses it before any card.
type AskAlways struct {
	// Title is the card's title ("Type into the editor's terminal?"),
	// Detail what the card shows of what will run, exactly (escaped,
	// never redacted: the user approves what runs).
	Title, Detail string
	// Run acts, once the card was allowed; its text is the result.
	Run func(ctx context.Context) (string, error)
}

// ExternalResult is how an outside call ended.
type ExternalResult struct {
	Text    string // what the client gets: capped, never redacted beyond what the tool does for the model
	IsError bool
	Status  wire.ToolStatus
	// Structured is an MCP result's structuredContent (redacted), which an
	// App calling the tool renders.
	Structured json.RawMessage
}

// externalBuiltins are the built-ins an outside client may call, by name.
// The rest are the model's own (search_tools, propose_plan, the MCP
// resource tools would hand the outside agent agentls's servers).
var externalBuiltins = []string{"edit_file", "find_files", "list_directory", "read_file", "run_command", "search_text", "write_file"}

// ExternalToolNames are the tools CallTool runs, sorted: the built-ins an
// outside client may call, read_document and agentls's own sessions tools.
func ExternalToolNames() []string {
	names := slices.Clone(externalBuiltins)
	names = append(names, SessionsToolName, TranscriptToolName, tools.DocumentToolName)
	slices.Sort(names)
	return names
}

// ExternalToolDef is the definition of one of ExternalToolNames (its
// description and input schema, as agentls's own model is offered it).
func ExternalToolDef(name string) (model.ToolDef, bool) {
	t, ok := (*Core)(nil).externalTool(name)
	if !ok {
		return model.ToolDef{}, false
	}
	return t.Def(), true
}

// externalTool is the tool an outside call of name runs (c may be nil
// for its definition alone).
func (c *Core) externalTool(name string) (tools.Tool, bool) {
	switch name {
	case SessionsToolName:
		return sessionsTool{c}, true
	case TranscriptToolName:
		return transcriptTool{c}, true
	case tools.DocumentToolName:
		return tools.Document(), true
	}
	if !slices.Contains(externalBuiltins, name) {
		return nil, false
	}
	return tools.Builtin(name)
}

// NewExternalSession is the session id of a new outside connection.
func NewExternalSession() string { return session.NewID() }

// externalSeq numbers the tool calls of outside clients (x1, x2, ...).
var externalSeq atomic.Int64

// CallTool runs one call of an outside client through the same path as a
// call of agentls's own model, as a task of its own (agent/tasks lists it,
// agent/cancel ends it): io's Approver shows its cards, its events go to
// io.Events, its edits to io.Workspace. ctx ends it too (the client
// cancelled, the connection closed).
func (c *Core) CallTool(ctx context.Context, ec ExternalCall, io TaskIO) ExternalResult {
	fail := func(msg string) ExternalResult {
		return ExternalResult{Text: "ERROR: " + msg, IsError: true, Status: wire.StatusFailed}
	}
	if ec.Client == "" {
		return fail("agent: an outside call must say which client makes it")
	}
	if err := session.CheckID(ec.SessionID); err != nil {
		return fail(err.Error())
	}
	if ec.Asks != nil {
		if _, core := c.externalTool(ec.Tool); core || ec.Tool == "" || ec.Asks.Run == nil {
			return fail(fmt.Sprintf("agent: an outside call that always asks needs a name of its own and an action, not %q", ec.Tool))
		}
		return c.callOutside(ctx, ec, askAlwaysTool{name: ec.Tool, a: *ec.Asks}, io)
	}
	t, ok := c.externalTool(ec.Tool)
	if !ok {
		return fail(fmt.Sprintf("unknown tool %q: use one of %v", ec.Tool, ExternalToolNames()))
	}
	return c.callOutside(ctx, ec, t, io)
}

// askAlwaysTool is an AskAlways call as a tool: its gate always asks with
// a command card whose only options are allow_once and reject_once. It is
// not one of plan mode's read tools, so plan mode refuses it unasked.
type askAlwaysTool struct {
	name string
	a    AskAlways
}

func (t askAlwaysTool) Def() model.ToolDef {
	return model.ToolDef{Name: t.name, Description: t.a.Title, Schema: json.RawMessage(`{"type":"object"}`)}
}

func (t askAlwaysTool) Plan(*tools.Env, json.RawMessage) tools.Plan {
	return tools.Plan{Title: t.name + " " + tools.FirstLine(trust.Redact(t.a.Detail), 80), Kind: wire.KindExecute, MayAsk: true}
}

func (t askAlwaysTool) Run(ctx context.Context, _ *tools.Env, call tools.Call, _ json.RawMessage) (tools.Result, error) {
	d := trust.Decision{Action: trust.Ask, Reason: t.name + " runs in the editor, where agentls confines nothing: it always asks"}
	card := wire.Approval{Kind: wire.ApprovalCommand, Tool: t.name, Title: t.a.Title, Detail: trust.VisibleText(t.a.Detail),
		Options: []wire.ApprovalOption{tools.AllowOnce, tools.RejectOnce}}
	if _, err := call.Gate(ctx, d, card, tools.Keep{}); err != nil {
		return tools.Result{}, err
	}
	text, err := t.a.Run(ctx)
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Text: text}, nil
}

// callOutside runs t for a call agentls's model did not make (an outside
// client's, an MCP App's), as a task of its own through callTool.
func (c *Core) callOutside(ctx context.Context, ec ExternalCall, t tools.Tool, io TaskIO) ExternalResult {
	fail := func(msg string) ExternalResult {
		return ExternalResult{Text: "ERROR: " + msg, IsError: true, Status: wire.StatusFailed}
	}
	input := ec.Input
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}

	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return fail("agent: shutting down, no new calls")
	}
	c.lastTask++
	task := &Task{ID: fmt.Sprintf("t%d", c.lastTask), SessionID: ec.SessionID, Prompt: ec.Tool,
		Title: tools.FirstLine(trust.Visible(ec.Client)+": "+ec.Tool, EchoMax), StartedAt: time.Now(), done: make(chan struct{})}
	task.setState(wire.TaskRunning)
	cctx, cancel := context.WithCancelCause(c.ctx)
	stop := context.AfterFunc(ctx, func() { cancel(context.Canceled) })
	task.cancel = func() { cancel(context.Canceled) }
	c.tasks[task.ID] = task
	c.busy()
	c.wg.Add(1)
	c.mu.Unlock()
	defer func() {
		stop()
		cancel(nil)
		c.mu.Lock()
		delete(c.tasks, task.ID)
		c.idle()
		c.mu.Unlock()
		task.setState("done")
		close(task.done)
		c.wg.Done()
	}()

	seen := &finalStatus{next: io.Events}
	io.Events = seen
	r := &run{core: c, task: task, io: io, ws: io.Workspace, tr: session.OpenTranscript(c.stateDir, ec.SessionID),
		client: ec.Client, callable: map[string]tools.Tool{ec.Tool: t}}
	if r.ws == nil {
		r.ws = DiskWorkspace(c.root)
	}
	r.tr.Note(fmt.Sprintf("%s called %s", trust.Visible(ec.Client), ec.Tool))
	env := &tools.Env{Workspace: r.ws, Registry: c.reg, MaxBytes: c.cfg.MCP.ResultMaxBytes, Mode: r.mode, SandboxRead: c.cfg.Sandbox.Read,
		Secrets: c.secrets, Policy: c.policy, Store: c.store}
	if c.cfg.Model.APIKeyEnv != "" {
		env.HideEnv = []string{c.cfg.Model.APIKeyEnv}
	}
	u := model.Block{Type: "tool_use", ID: fmt.Sprintf("x%d", externalSeq.Add(1)), Name: ec.Tool, Input: input}
	if !json.Valid(input) || input[0] != '{' {
		u.InvalidInput = string(input)
		u.Input = json.RawMessage("{}")
	}
	b := r.callTool(cctx, env, u, t.Plan(env, u.Input))
	// A task's events end with done, whatever ran it: the fronts end the
	// task's progress and status there (docs/protocol.md section 3).
	reason := wire.StopEndTurn
	if cctx.Err() != nil {
		reason = wire.StopCancelled
	}
	r.emit(wire.Event{Type: wire.EventDone, StopReason: reason, Usage: &wire.Usage{}})
	return ExternalResult{Text: b.Content, IsError: b.IsError, Status: seen.status, Structured: seen.structured}
}

// finalStatus passes a call's events on and keeps the status of its
// tool_result, the call's last event.
type finalStatus struct {
	next       EventSink
	status     wire.ToolStatus
	structured json.RawMessage
}

func (f *finalStatus) Event(e wire.Event) {
	if e.Type == wire.EventToolResult {
		f.status, f.structured = e.Status, e.Structured
	}
	if f.next != nil {
		f.next.Event(e)
	}
}

// AppCall runs a tools/call an App made: only a tool of the App's own
// server, and only from an App one of that server's tools offers, through
// the path of the model's own calls; the card names the App as asking.
func (c *Core) AppCall(ctx context.Context, p wire.AppCallParams, io TaskIO) wire.AppCallResult {
	fail := func(msg string) wire.AppCallResult {
		return wire.AppCallResult{Text: "ERROR: " + msg, IsError: true, Status: wire.StatusFailed}
	}
	if err := session.CheckID(p.SessionID); err != nil {
		return fail(err.Error())
	}
	if c.reg == nil {
		return fail("agent: no MCP servers")
	}
	offered, name := false, ""
	var tool *tools.Tool
	for _, t := range c.reg.Tools() {
		if t.Server != p.Server {
			continue
		}
		offered = offered || t.UI == p.ResourceURI && p.ResourceURI != ""
		if t.ServerTool == p.Tool {
			tt := tools.FromMCP(t, c.cfg.MCP.DescriptionMaxChars)
			tool, name = &tt, t.Name
		}
	}
	switch {
	case !offered:
		return fail(fmt.Sprintf("no tool of %s offers the App %s", trust.Visible(p.Server), trust.Visible(p.ResourceURI)))
	case tool == nil:
		// Stops an App from reaching another server's tools or agentls's built-ins.
		return fail(fmt.Sprintf("the App of %s may call only that server's tools; it has none named %s", trust.Visible(p.Server), trust.Visible(p.Tool)))
	}
	client := fmt.Sprintf("the App %s of %s", p.ResourceURI, p.Server)
	res := c.callOutside(ctx, ExternalCall{Client: client, SessionID: p.SessionID, Tool: name, Input: p.Arguments}, *tool, io)
	return wire.AppCallResult{Text: res.Text, IsError: res.IsError, Status: res.Status, StructuredContent: res.Structured}
}
