// Package agent is the loop every editor drives: tasks in sessions (stored by
// agent/session; their system prompt built by agent/prompt), the tool loop over
// a model provider, and the one path every tool call takes, built-in or from
// the MCP registry ([tools.Tool]: the tools themselves live in agent/tools),
// through its gate (the decisions of package trust) and the approver. It never knows about LSP: it asks through Approver, streams
// through EventSink and edits through Workspace.
//
// The history invariant: every tool_use of a stored assistant message has
// exactly one tool_result, in order, in the next user message (ValidHistory,
// checked before every request). A cancel or an error while the model
// streams stores what streamed as an interrupted answer (text only, never a
// half tool call: agent/session/interrupted.go); a cancel while an approval waits or a
// tool runs answers that call and every later call of the message with
// "ERROR: cancelled". Deny, timeout and errors are answered the same way,
// with their own ERROR text.
//
// It must never run a tool the user did not allow, reach a file outside the
// workspace folders, or leave a process or goroutine behind a task.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/wire"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/prompt"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

// Options build a Core.
type Options struct {
	Config   *config.Config
	Registry *mcp.Registry  // nil: no MCP servers
	Store    *trust.Store   // nil: nothing trusted, nothing always-allowed
	Provider model.Provider // nil: chosen from Config at the first run (docs/config.md defaults)
	StateDir string         // sessions and transcripts; "" = config.StateDir()
	Logf     func(format string, args ...any)
	// Root is the workspace this Core serves: sessions are stored per root,
	// and tasks without a Workspace use the disk there. "" = the process cwd.
	Root string
}

// Core is one agentls process's agent: it runs tasks and owns sessions.
type Core struct {
	cfg    config.Config
	loaded *config.Config // as Open loaded it (nil from New)
	// ownsRegistry: Open built reg, so Close stops its servers.
	ownsRegistry bool
	reg          *mcp.Registry
	store        *trust.Store
	stateDir     string
	root         string
	wroteLive    bool // this process wrote the workspace's live session (live.go)
	logf         func(format string, args ...any)
	sessions     session.Store
	secrets      tools.Secrets // what read tools ask about
	builtins     []tools.Tool  // the built-in tools, sorted by name

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	provMu   sync.Mutex
	provider model.Provider           // Options.Provider: the default profile's
	models   map[string]*profileModel // by profile name, made on first use (profile.go)

	mu        sync.Mutex
	closed    bool
	lastTask  int
	tasks     map[string]*Task        // running tasks
	sessLocks map[string]*sessionHold // one task per session at a time, while a task needs it (memory.go)
	torn      map[string]bool         // sessions whose transcript a write failed for (transcript.go)
	release   *time.Timer             // gives memory back once idle (memory.go); nil when not armed
	recent    []string                // sessions last released, newest last (memory.go)
	retaining atomic.Bool             // the retention policy is being applied (session.go)
	approvals atomic.Int64

	bg mcpTasks // MCP tasks followed after their turn (mcptask.go)

	launchMu sync.Mutex
	launches map[launchKey]*launchFlight // launch cards on screen (launch_join.go)

	// Guarded by mu (mode.go, profile.go).
	controls    map[string]*session.Control // by session id: its mode and profile, as chosen
	mode        wire.Mode                   // set for every session not set since; "": [agent] mode
	profileName string                      // likewise the profile; "": [model]
	saveMu      sync.Mutex                  // one saveControl at a time
}

// New makes a Core. It starts nothing.
func New(opts Options) (*Core, error) {
	c := &Core{reg: opts.Registry, store: opts.Store, provider: opts.Provider, logf: opts.Logf,
		tasks: map[string]*Task{}, sessLocks: map[string]*sessionHold{}, torn: map[string]bool{}}
	if opts.Config != nil {
		c.cfg = *opts.Config
	}
	c.cfg = c.cfg.WithDefaults()
	if c.logf == nil {
		c.logf = func(string, ...any) {}
	}
	c.stateDir = opts.StateDir
	if c.stateDir == "" {
		c.stateDir = config.StateDir()
	}
	if c.stateDir == "" {
		return nil, errors.New("agent: no state directory for sessions: set XDG_STATE_HOME or HOME")
	}
	c.root = opts.Root
	if c.root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("agent: workspace root: %w", err)
		}
		c.root = wd
	}
	c.sessions = session.NewStore(c.stateDir, c.root)
	c.secrets = tools.NewSecrets(c.stateDir)
	c.builtins = tools.Builtins()
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// RunRequest is one agent/run.
type RunRequest struct {
	Prompt      string
	SessionID   string            // "" = new session
	Document    string            // absolute path of the active document, or ""
	Range       *prompt.Range     // selection in Document
	Diagnostics []json.RawMessage // LSP Diagnostic objects the client sent
	// MCPPrompt, when set, makes the turn a server's prompt: the task gets
	// it (prompts/get, under the server's policy) and its messages become
	// the user's turn; Prompt is ignored.
	MCPPrompt *PromptRef
}

// Echo is how the request is named where it is echoed (task titles,
// progress): the prompt's first line, or the MCP prompt's names.
func (req RunRequest) Echo() string {
	if req.MCPPrompt != nil {
		return PromptTitle(*req.MCPPrompt)
	}
	return tools.FirstLine(req.Prompt, EchoMax)
}

// TaskIO connects one task to its front end.
type TaskIO struct {
	Approver  Approver        // nil: every approval is denied
	Events    EventSink       // nil: events dropped
	Workspace tools.Workspace // nil: the disk, rooted at the process's cwd
	// ShowsApps: the front renders the MCP App a tool result offers
	// (agent/mcp/app); otherwise the task says it offered one that this
	// editor cannot show.
	ShowsApps bool
}

// EchoMax caps what echoes a prompt (agent/tasks, $/progress, titles): its
// first line, at most this many characters.
const EchoMax = 200

// Task is a running or finished task.
type Task struct {
	ID        string
	SessionID string
	Prompt    string
	Title     string // the prompt's first line, at most EchoMax characters
	StartedAt time.Time

	done   chan struct{}
	result wire.RunResult
	cancel context.CancelFunc
	state  atomic.Value               // wire.TaskState
	usage  atomic.Pointer[wire.Usage] // so far, for agent/tasks

	wroteMu sync.Mutex
	wrote   []string // the files the task's own writes landed in, in order
}

// Wrote lists the files the task's write tools changed: each write the
// user approved and the editor (or the disk) took. A write that was
// denied, whose diff was closed, or that the editor refused is not in it;
// neither is a file a command changed.
func (t *Task) Wrote() []string {
	t.wroteMu.Lock()
	defer t.wroteMu.Unlock()
	return slices.Clone(t.wrote)
}

func (t *Task) landed(path string) {
	t.wroteMu.Lock()
	defer t.wroteMu.Unlock()
	if !slices.Contains(t.wrote, path) {
		t.wrote = append(t.wrote, path)
	}
}

// Done is closed when the task has ended.
func (t *Task) Done() <-chan struct{} { return t.done }

// Result is valid after Done is closed.
func (t *Task) Result() wire.RunResult {
	select {
	case <-t.done:
		return t.result
	default:
		return wire.RunResult{TaskID: t.ID, SessionID: t.SessionID}
	}
}

func (t *Task) setState(s wire.TaskState) { t.state.Store(s) }

func (t *Task) stateName() wire.TaskState {
	s, _ := t.state.Load().(wire.TaskState)
	return s
}

// Start starts a task in the background and returns at once.
func (c *Core) Start(req RunRequest, io TaskIO) *Task {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastTask++
	t := &Task{ID: fmt.Sprintf("t%d", c.lastTask), SessionID: req.SessionID, Prompt: req.Prompt,
		Title: req.Echo(), StartedAt: time.Now(), done: make(chan struct{})}
	t.setState(wire.TaskRunning)
	if t.SessionID == "" {
		t.SessionID = session.NewID()
	}
	fail := func(msg string) *Task {
		t.result = wire.RunResult{TaskID: t.ID, SessionID: t.SessionID, StopReason: "error", Error: msg}
		t.setState("done")
		close(t.done)
		return t
	}
	switch {
	case c.closed:
		return fail("agent: shutting down, no new tasks")
	case session.CheckID(t.SessionID) != nil:
		return fail(session.CheckID(t.SessionID).Error())
	}
	ctx, cancel := context.WithCancelCause(c.ctx)
	t.cancel = func() { cancel(context.Canceled) }
	c.tasks[t.ID] = t
	c.busy()
	_, statErr := os.Stat(c.sessions.Path(t.SessionID))
	started := errors.Is(statErr, fs.ErrNotExist) // this task starts the session
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer cancel(nil)
		res := c.runTask(ctx, t, req, io)
		if started {
			c.retain(time.Now())
		}
		c.mu.Lock()
		delete(c.tasks, t.ID)
		c.idle()
		c.mu.Unlock()
		t.result = res
		t.setState("done")
		close(t.done)
	}()
	return t
}

// Cancel cancels one task; false if unknown or already done.
func (c *Core) Cancel(taskID string) bool {
	c.mu.Lock()
	t, ok := c.tasks[taskID]
	c.mu.Unlock()
	if ok {
		t.cancel()
	}
	// A task that ended may have left MCP tasks running: they go too.
	return c.cancelMCPTasks(taskID, "") || ok
}

// CancelSession cancels every task of a session.
func (c *Core) CancelSession(sessionID string) {
	c.mu.Lock()
	for _, t := range c.tasks {
		if t.SessionID == sessionID {
			t.cancel()
		}
	}
	c.mu.Unlock()
	c.cancelMCPTasks("", sessionID)
}

// Tasks lists the running tasks, oldest first.
func (c *Core) Tasks() []wire.TaskInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]wire.TaskInfo, 0, len(c.tasks))
	for _, t := range c.tasks {
		info := wire.TaskInfo{TaskID: t.ID, SessionID: t.SessionID, State: t.stateName(), Prompt: t.Title, StartedAt: t.StartedAt}
		if u := t.usage.Load(); u != nil {
			info.Usage = *u
		}
		out = append(out, info)
	}
	sortTasks(out)
	return out
}

// NewChat cancels a session's tasks and returns a new empty session's id,
// which keeps the mode and model profile chosen for the old one.
func (c *Core) NewChat(sessionID string) string {
	id := session.NewID()
	if sessionID != "" {
		c.CancelSession(sessionID)
		c.carryControl(sessionID, id)
	}
	return id
}

// Sessions lists the stored sessions of this workspace, newest first.
func (c *Core) Sessions() ([]wire.SessionInfo, error) { return c.sessions.List() }

// TranscriptPath is the Markdown transcript of a session (under the state dir).
func (c *Core) TranscriptPath(sessionID string) string {
	if session.CheckID(sessionID) != nil {
		return ""
	}
	return session.TranscriptPath(c.stateDir, sessionID)
}

// Close cancels every task (each ends "cancelled") and waits for them.
func (c *Core) Close() {
	c.mu.Lock()
	c.closed = true
	c.busy() // no release after Close
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
	c.dropLive()
	if c.ownsRegistry && c.reg != nil {
		if err := c.reg.Close(); err != nil {
			c.logf("agentls: closing MCP servers: %v", err)
		}
	}
}

func (c *Core) policy() *trust.Policy {
	return &trust.Policy{Rules: c.cfg.MCP.Policy, Store: c.store, Autopilot: c.cfg.Agent.Autopilot}
}
