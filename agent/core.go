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
	retaining atomic.Bool             // the retention policy is being applied (retention.go)
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

// Sessions lists the stored sessions of this workspace, newest first.
func (c *Core) Sessions() ([]wire.SessionInfo, error) { return c.sessions.List() }

// TranscriptPath is the Markdown transcript of a session (under the state dir).
func (c *Core) TranscriptPath(sessionID string) string {
	if session.CheckID(sessionID) != nil {
		return ""
	}
	return session.TranscriptPath(c.stateDir, sessionID)
}

func (c *Core) policy() *trust.Policy {
	return &trust.Policy{Rules: c.cfg.MCP.Policy, Store: c.store, Autopilot: c.cfg.Agent.Autopilot}
}

// profileModel is one profile's model: its table, provider and window.
type profileModel struct {
	name string
	cfg  config.Model

	mu       sync.Mutex
	provider model.Provider
	win      *model.Window // found at its first turn (window.go)
	winSaid  bool          // a turn said where the window came from
	hidSaid  bool          // a turn said the tool budget hides MCP tools
}

// sessionHold is one session's lock and how many tasks hold or wait for it.
type sessionHold struct {
	ch    chan struct{}
	users int
}

// mcpTask is one task the core follows after the turn that started it.
type mcpTask struct {
	task    mcp.Task
	owner   string // the agent task whose call it was
	session string
	callID  string
	cancel  context.CancelFunc
}

// mcpTasks are the tasks a core follows and the results not yet given to
// the model, by session.
type mcpTasks struct {
	mu       sync.Mutex
	running  map[*mcpTask]bool
	finished map[string][]string
}

// launchKey names one launch question: the same server with a changed
// command (another fingerprint) is another question and gets its own card.
type launchKey struct{ root, name, fingerprint string }

// launchFlight is a launch card on screen and, once done is closed, what
// came of it. TrustServer callers asking the same question while it waits
// join it instead of showing a second card (the start-up card and a
// client's trust command would otherwise both be on screen, and the user
// could answer them differently).
type launchFlight struct {
	done    chan struct{} // closed when state, err and retry are final
	waiters int           // callers joined and still waiting; guarded by Core.launchMu
	state   mcp.State
	err     error
	// retry: the asker's ctx ended before the outcome was final (nobody
	// answered, or it went away mid-start). That is no answer for the
	// joiners, whose own user may still be there: they ask again.
	retry bool
}

// PromptRef names one prompt of an MCP server and the arguments to run it
// with (agentls.prompt, a prompt's code action, an ACP slash command).
type PromptRef struct {
	Server    string
	Name      string
	Arguments map[string]string
}
