// Package wire is agentls's wire contract with editors: the agent/*
// methods of the LSP front, their params and results, the agent/event
// notification, and the named values they carry (event types, tool call
// statuses, stop reasons, approval kinds and options, task states). The
// core (agent) produces these values and every front (server for LSP, acp,
// the command line's --json) sends them, so a value has one spelling.
//
// contract.go declares every method and command once; docs/protocol.md
// describes the contract in prose, and its tests check the document's
// tables against the declarations field by field.
package wire

import (
	"encoding/json"
	"time"
)

// EventType is the type of an agent/event.
type EventType string

// The event types.
const (
	EventText EventType = "text"
	// EventReasoning is the model's reasoning as it streams (Anthropic's
	// thinking, reasoning_content, reasoning): shown folded and marked as
	// reasoning, never as the answer.
	EventReasoning  EventType = "reasoning"
	EventToolCall   EventType = "tool_call"
	EventToolResult EventType = "tool_result"
	EventApproval   EventType = "approval"
	EventStatus     EventType = "status"
	EventDone       EventType = "done"
)

// ToolStatus is where a tool call is. A call goes pending → (awaiting
// approval) → running → one of the final statuses.
type ToolStatus string

// The tool call statuses.
const (
	StatusPending          ToolStatus = "pending"
	StatusAwaitingApproval ToolStatus = "awaiting_approval"
	StatusRunning          ToolStatus = "running"
	StatusCompleted        ToolStatus = "completed"
	StatusFailed           ToolStatus = "failed"
	StatusDenied           ToolStatus = "denied"
	StatusCancelled        ToolStatus = "cancelled"
)

// Final reports whether s ends a call (its tool_result follows).
func (s ToolStatus) Final() bool {
	switch s {
	case StatusCompleted, StatusFailed, StatusDenied, StatusCancelled:
		return true
	}
	return false
}

// StopReason is why a task ended.
type StopReason string

// The stop reasons of a task.
const (
	StopEndTurn       StopReason = "end_turn"
	StopCancelled     StopReason = "cancelled"
	StopMaxIterations StopReason = "max_iterations"
	StopError         StopReason = "error"
	// StopMaxTokens: the model's answer was cut at [model] max_tokens
	// (a reasoning model may spend all of it thinking).
	StopMaxTokens StopReason = "max_tokens"
	// StopRefusal: the model (or the provider's content filter) declined;
	// the done event's text is what it said.
	StopRefusal StopReason = "refusal"
)

// ApprovalKind is what an approval card asks about.
type ApprovalKind string

// The approval kinds.
const (
	ApprovalMCPLaunch ApprovalKind = "mcp_launch"
	ApprovalMCPCall   ApprovalKind = "mcp_call"
	ApprovalCommand   ApprovalKind = "command"
	ApprovalWrite     ApprovalKind = "write"
	ApprovalRead      ApprovalKind = "read"
	// ApprovalElicitation is a question an MCP server asks the user while
	// one of its tools runs (MCP elicitation/create): Elicitation says what.
	ApprovalElicitation ApprovalKind = "elicitation"
	// ApprovalPlan is the plan a plan-mode session ends with (the model's
	// propose_plan): accepting it switches the session to ask mode and the
	// agent carries it out.
	ApprovalPlan ApprovalKind = "plan"
)

// OptionKind is the kind of an approval option.
type OptionKind string

// The option kinds.
const (
	OptionAllowOnce   OptionKind = "allow_once"
	OptionAllowAlways OptionKind = "allow_always"
	OptionRejectOnce  OptionKind = "reject_once"
	// OptionRejectAlways denies and saves an "always deny" rule (the
	// option's name says which): the next such call is refused without a
	// card.
	OptionRejectAlways OptionKind = "reject_always"
)

// The option ids of an mcp_launch card beyond allow_once (which starts the
// server as its entry says: confined, no network) and reject_once: the
// other ways to start a server whose entry does not say how to confine it
// (docs/protocol.md section 4). Both have kind allow_once.
const (
	OptionLaunchNetwork    = "allow_network"
	OptionLaunchUnconfined = "allow_unconfined"
)

// ApprovalState is an approval event's state.
type ApprovalState string

// The approval states.
const (
	ApprovalWaiting  ApprovalState = "waiting"
	ApprovalResolved ApprovalState = "resolved"
)

// TaskState is a running task's state in agent/tasks.
type TaskState string

// The task states.
const (
	TaskRunning          TaskState = "running"
	TaskAwaitingApproval TaskState = "awaiting_approval"
	TaskDone             TaskState = "done"
)

// ServerState is a configured MCP server's state (agent/mcp/servers, and
// the result of agent/mcp/trust and restart).
type ServerState string

// The server states.
const (
	ServerConnecting    ServerState = "connecting"
	ServerConnected     ServerState = "connected"
	ServerFailed        ServerState = "failed"
	ServerNeedsApproval ServerState = "needs_approval"
	ServerApprovalStale ServerState = "approval_stale"
	ServerDisabled      ServerState = "disabled"
	ServerStopped       ServerState = "stopped"
)

// ServerStateResult is the result of agent/mcp/trust and agent/mcp/restart.
type ServerStateResult struct {
	State ServerState `json:"state"`
}

// ToolKind says what a tool call does, so a front can pick an icon or a
// view for it (ACP's ToolKind has the same values).
type ToolKind string

// The kinds of tool calls.
const (
	KindRead    ToolKind = "read"
	KindEdit    ToolKind = "edit"
	KindSearch  ToolKind = "search"
	KindExecute ToolKind = "execute"
	KindFetch   ToolKind = "fetch"
	KindOther   ToolKind = "other"
)

// ApprovalOption is one choice on an approval card.
type ApprovalOption struct {
	OptionID string     `json:"optionId"` // its kind, or OptionLaunchNetwork / OptionLaunchUnconfined
	Name     string     `json:"name"`
	Kind     OptionKind `json:"kind"`
}

// Approval is one question to the user (docs/protocol.md section 4).
type Approval struct {
	ApprovalID string          `json:"approvalId"`
	TaskID     string          `json:"taskId,omitempty"`
	Kind       ApprovalKind    `json:"kind"`
	Title      string          `json:"title"`
	Detail     string          `json:"detail"`
	Server     string          `json:"server,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	Command    []string        `json:"command,omitempty"`
	Env        [][2]string     `json:"env,omitempty"`
	Cwd        string          `json:"cwd,omitempty"`
	URL        string          `json:"url,omitempty"`         // mcp_launch of a remote server
	Headers    []string        `json:"headerNames,omitempty"` // its header names (never values)
	// Elicitation is the question of an elicitation approval: the form's
	// fields a client may show (or the URL to open), as the server wrote them.
	Elicitation *Elicitation `json:"elicitation,omitempty"`
	// Rule is what the card's allow_always option saves for the
	// workspace, as `agentls rules list` shows it ("command: go test
	// ./...", "write: src/api"); "" when it saves no rule.
	Rule string `json:"rule,omitempty"`
	// RequestedBy names the outside MCP client whose call the card gates
	// (agentls mcp serve): its own name and its connection; the title
	// starts with it too. "" for agentls's own agent.
	RequestedBy string           `json:"requestedBy,omitempty"`
	Options     []ApprovalOption `json:"options"`
	// ToolCallID is the tool call this approval gates ("" for a launch
	// card). Diff is the whole change a write approval asks for. Neither is
	// part of the LSP approval; ACP shows both.
	ToolCallID string    `json:"-"`
	Diff       *FileDiff `json:"-"`
}

// FileDiff is one file's change as a write approval shows it: the absolute
// path, the text before (none for a new file) and the whole text after.
type FileDiff struct {
	Path    string
	OldText *string // nil: the file does not exist yet
	NewText string
}

// Event is one agent/event notification (docs/protocol.md section 3).
//
// A tool call's events, in order: a first tool_call carrying the redacted
// arguments, status-only tool_call updates (pending, awaiting_approval,
// running), then a tool_call with the final status (completed, failed,
// denied or cancelled) immediately followed by the call's tool_result,
// which is always its last event. Every tool_use the model made gets both,
// even one a cancel kept from starting.
type Event struct {
	TaskID     string          `json:"taskId"`
	SessionID  string          `json:"sessionId"`
	Seq        int             `json:"seq"`
	Type       EventType       `json:"type"`
	Delta      string          `json:"delta,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Server     string          `json:"server,omitempty"`
	Title      string          `json:"title,omitempty"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	Status     ToolStatus      `json:"status,omitempty"`
	Output     string          `json:"output,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	ApprovalID string          `json:"approvalId,omitempty"`
	State      ApprovalState   `json:"state,omitempty"`
	OptionID   string          `json:"optionId,omitempty"`
	Message    string          `json:"message,omitempty"`
	StopReason StopReason      `json:"stopReason,omitempty"`
	Text       string          `json:"text,omitempty"`
	Usage      *Usage          `json:"usage,omitempty"`
	// Cost is what the turn's Usage cost in US dollars at the model's
	// price ([prices]), on done events; absent when the model has none.
	Cost *float64 `json:"cost,omitempty"`
	// Mode is the session's mode, on status and done events.
	Mode Mode `json:"mode,omitempty"`
	// Profile and Model name the session's model profile and its model's
	// name, on status and done events.
	Profile string `json:"profile,omitempty"`
	Model   string `json:"model,omitempty"`
	// Kind and Locations come with a call's first tool_call: what the tool
	// does and the files it names (absolute). They are not part of the LSP
	// event; ACP's tool_call carries them.
	Kind      ToolKind `json:"-"`
	Locations []string `json:"-"`
	// UI comes with the tool_result of an MCP tool that offers an App (the
	// MCP Apps extension): a client that shows Apps reads it with
	// agent/mcp/app.
	UI *AppRef `json:"ui,omitempty"`
	// Structured is an MCP result's structuredContent (redacted), on a
	// tool_result: the App's StructuredContent carries it on the LSP
	// event; agent/mcp/appCall answers it.
	Structured json.RawMessage `json:"-"`
	// Images come with a tool_result: the images the model was shown, each
	// also named in Output ("[image: image/png, 3 KB, 20x20]"). They are
	// not part of the LSP event; ACP's tool_call_update carries them.
	Images []Image `json:"-"`
}

// AppRef names the MCP App a tool result offers: its server, the server's
// own name of the tool, and the ui:// resource of its HTML.
type AppRef struct {
	Server      string `json:"server"`
	Tool        string `json:"tool"`
	ResourceURI string `json:"resourceUri"`
	// StructuredContent is the result's structuredContent (redacted),
	// which an App renders; absent when the server sent none.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
}

// Image is an image of a tool result: its type and its bytes in base64.
type Image struct {
	MIMEType string
	Data     string
}

// Usage is the token count of a task. InputTokens counts every input token
// of its requests, cached ones included; CacheReadTokens and
// CacheWriteTokens are the parts read from and written to the provider's
// prompt cache. ContextTokens is how full the window was after the last
// response (its input and output), of ContextWindow.
type Usage struct {
	InputTokens      int `json:"inputTokens"`
	OutputTokens     int `json:"outputTokens"`
	CacheReadTokens  int `json:"cacheReadTokens"`
	CacheWriteTokens int `json:"cacheWriteTokens"`
	ContextTokens    int `json:"contextTokens,omitempty"`
	ContextWindow    int `json:"contextWindow,omitempty"`
}

// Position is an LSP position: 0-based line, UTF-16 code units.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is an LSP range.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// TextDocument names a document by URI.
type TextDocument struct {
	URI string `json:"uri"`
}

// RunParams are agent/run's params (and agentls.run's argument). Every
// field may be left out: without a prompt, the range's text or directive,
// or the diagnostics, say what to do.
type RunParams struct {
	Prompt       string            `json:"prompt,omitempty"`
	SessionID    string            `json:"sessionId,omitempty"`
	TextDocument *TextDocument     `json:"textDocument,omitempty"`
	Range        *Range            `json:"range,omitempty"`
	Diagnostics  []json.RawMessage `json:"diagnostics,omitempty"`
}

// RunResult is how a task ended: agent/run's result (the task's done
// event, the last line of `agentls run --json`, says the same).
type RunResult struct {
	TaskID     string     `json:"taskId"`
	SessionID  string     `json:"sessionId"`
	StopReason StopReason `json:"stopReason"`
	Text       string     `json:"text"`
	Error      string     `json:"error,omitempty"`
	Usage      Usage      `json:"usage"`
}

// CancelParams are agent/cancel's params: a task, or every task of a session.
type CancelParams struct {
	TaskID    string `json:"taskId,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// TaskInfo is one row of agent/tasks.
type TaskInfo struct {
	TaskID    string    `json:"taskId"`
	SessionID string    `json:"sessionId"`
	State     TaskState `json:"state"`
	Prompt    string    `json:"prompt"` // the prompt's first line, at most 200 characters (agent.EchoMax)
	StartedAt time.Time `json:"startedAt"`
	Usage     Usage     `json:"usage"` // tokens so far, cache reads and writes included
}

// TasksResult is agent/tasks' result.
type TasksResult struct {
	Tasks []TaskInfo `json:"tasks"`
}

// NewChatParams are agent/newChat's params.
type NewChatParams struct {
	SessionID string `json:"sessionId,omitempty"`
}

// NewChatResult is agent/newChat's result.
type NewChatResult struct {
	SessionID string `json:"sessionId"`
}

// SessionInfo is one row of agent/sessions.
type SessionInfo struct {
	SessionID string    `json:"sessionId"`
	Title     string    `json:"title"`
	UpdatedAt time.Time `json:"updatedAt"`
	Turns     int       `json:"turns"`
	// Pinned sessions are never deleted by the [sessions] retention
	// policy (agent/pinSession).
	Pinned bool `json:"pinned"`
}

// PinSessionParams are agent/pinSession's params.
type PinSessionParams struct {
	SessionID string `json:"sessionId"`
	Pinned    bool   `json:"pinned"`
}

// SessionsResult is agent/sessions' result.
type SessionsResult struct {
	Sessions []SessionInfo `json:"sessions"`
}

// ReplayParams are agent/replay's params.
type ReplayParams struct {
	SessionID string `json:"sessionId"`
}

// ReplayResult is agent/replay's result: a stored session as the events a
// client shows for it, oldest first (EventPrompt for each user prompt).
type ReplayResult struct {
	SessionID string `json:"sessionId"`
	// Events are agent/event params (taskId empty, seq from 1).
	Events []any `json:"events"`
}

// EventPrompt is the type of a replayed user prompt (agent/replay's
// events: {type, text}); a live task never sends it.
const EventPrompt EventType = "prompt"

// StatusParams are agent/status's params: the session asked about (""
// or absent: the mode new sessions start in).
type StatusParams struct {
	SessionID string `json:"sessionId,omitempty"`
}

// SetModeParams are agent/setMode's params: a session's mode, or with no
// sessionId, the mode of every session not set since (new ones too).
type SetModeParams struct {
	SessionID string `json:"sessionId,omitempty"`
	Mode      Mode   `json:"mode"`
}

// SetModelParams are agent/setModel's params: a session's model profile,
// or with no sessionId, the profile of every session not set since (new
// ones too).
type SetModelParams struct {
	SessionID string `json:"sessionId,omitempty"`
	Profile   string `json:"profile"`
}

// ModelResult is agent/setModel's result: the model the session's next
// turn talks to.
type ModelResult struct {
	SessionID string    `json:"sessionId,omitempty"`
	Model     ModelInfo `json:"model"`
}

// ModeResult is agent/setMode's result: the mode now.
type ModeResult struct {
	SessionID string `json:"sessionId,omitempty"`
	Mode      Mode   `json:"mode"`
}

// Rule is one saved "always allow" rule of a workspace folder.
type Rule struct {
	// ID names it for agent/rules/revoke ("command: npm run lint",
	// "command: go test ./*", "write: src/api").
	ID   string   `json:"id"`
	Kind string   `json:"kind"`           // "command" or "write"
	Argv []string `json:"argv,omitempty"` // a command rule's words
	// Prefix: the command rule also allows its words followed by paths
	// inside the command's folder ("./..." "./cmd/x"; ID ending "./*").
	Prefix      bool      `json:"prefix,omitempty"`
	Folder      string    `json:"folder,omitempty"` // a write rule's folder, relative to Workspace
	Workspace   string    `json:"workspace"`        // the workspace folder, absolute
	Description string    `json:"description"`
	AddedAt     time.Time `json:"addedAt"`
	// Deny marks an "always deny" rule: what it matches is refused
	// without a card. Shell: a deny command rule's Argv is one shell
	// string. Path: the one file a deny write rule refuses.
	Deny  bool   `json:"deny,omitempty"`
	Shell bool   `json:"shell,omitempty"`
	Path  string `json:"path,omitempty"`
}

// RulesResult is agent/rules's result.
type RulesResult struct {
	Rules []Rule `json:"rules"`
}

// RevokeRuleParams are agent/rules/revoke's params: the rule's id, and its
// workspace folder when more than one holds a rule of that id.
type RevokeRuleParams struct {
	ID        string `json:"id"`
	Workspace string `json:"workspace,omitempty"`
}

// RevokeRuleResult is agent/rules/revoke's result: the rules forgotten.
type RevokeRuleResult struct {
	Revoked []Rule `json:"revoked"`
}

// StatusResult is agent/status's result: the model the next turn talks to
// and the mode its gates decide in.
type StatusResult struct {
	Model ModelInfo `json:"model"`
	// Mode is the mode of the session asked about (or of new sessions).
	Mode Mode `json:"mode"`
	// Profiles are the model profiles a session may switch to
	// (agent/setModel), "default" ([model]) first.
	Profiles []ModelInfo `json:"profiles"`
}

// ModelInfo names a model profile's model as the config resolves it.
// Error says why none could be resolved (Provider and Name empty then).
type ModelInfo struct {
	// Profile is the profile's name: "default" ([model]) or a
	// [model.profiles.NAME] of the user config.
	Profile  string `json:"profile"`
	Provider string `json:"provider"`
	Name     string `json:"name"`
	Error    string `json:"error,omitempty"`
}

// ResolveApprovalParams are agent/resolveApproval's params.
type ResolveApprovalParams struct {
	ApprovalID string `json:"approvalId"`
	OptionID   string `json:"optionId"`
}

// RequestApprovalResult is the client's answer to agent/requestApproval.
// Content is the form a client filled in, with optionId "accept", for an
// elicitation approval that offers that option (docs/protocol.md section 4).
type RequestApprovalResult struct {
	Outcome  string         `json:"outcome"` // "selected" | "cancelled"
	OptionID string         `json:"optionId"`
	Content  map[string]any `json:"content,omitempty"`
}

// ServerParams name one MCP server (agent/mcp/trust, restart).
type ServerParams struct {
	Server string `json:"server"`
}

// RevokeParams are agent/mcp/revoke's params: one MCP server, or with All
// every remembered approval.
type RevokeParams struct {
	Server string `json:"server,omitempty"`
	All    bool   `json:"all,omitempty"`
}

// NoParams are the params of a method that takes none (agent/tasks,
// agent/sessions, agent/approvals, agent/mcp/servers): whatever a client
// sends is ignored.
type NoParams struct{}

// UnmarshalJSON ignores the params.
func (*NoParams) UnmarshalJSON([]byte) error { return nil }

// CompactParams are agent/compact's params.
type CompactParams struct {
	SessionID string `json:"sessionId"`
}

// CompactResult is agent/compact's result: the session and the estimated
// tokens of what would be sent next, before and after compacting.
type CompactResult struct {
	SessionID    string `json:"sessionId"`
	TokensBefore int    `json:"tokensBefore"`
	TokensAfter  int    `json:"tokensAfter"`
}

// RewindParams are agent/rewind's params: the session and the turn (1 is
// its first prompt) whose files, and those of every later turn, go back to
// how they were before it. Force overwrites files changed outside agentls
// since agentls wrote them.
type RewindParams struct {
	SessionID string `json:"sessionId"`
	Turn      int    `json:"turn"`
	Force     bool   `json:"force,omitempty"`
}

// RewindResult is agent/rewind's result. Changed lists the files changed
// outside agentls since; when it is not empty and force was not set,
// nothing was restored (ask, then rewind again with force). Restored and
// NotRestored say what the rewind did, and Message says it in a sentence.
type RewindResult struct {
	SessionID   string       `json:"sessionId"`
	Turn        int          `json:"turn"`
	Restored    []string     `json:"restored,omitempty"`
	NotRestored []RewindFile `json:"notRestored,omitempty"`
	Changed     []string     `json:"changed,omitempty"`
	Message     string       `json:"message"`
}

// TurnsParams are agent/turns' params.
type TurnsParams struct {
	SessionID string `json:"sessionId"`
}

// TurnsResult is agent/turns' result: the turns of the session a rewind
// can go back before, oldest first.
type TurnsResult struct {
	SessionID string `json:"sessionId"`
	Turns     []Turn `json:"turns"`
}

// Turn is one turn of a session, for a picker of agent/rewind: its number
// (1 is the first prompt), the first line of its prompt, and the files it
// changed that agentls kept a checkpoint of.
type Turn struct {
	Turn   int      `json:"turn"`
	Prompt string   `json:"prompt"`
	Files  []string `json:"files,omitempty"`
}

// RewindFile is a file a rewind could not restore, and why.
type RewindFile struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// RevokeResult is agent/mcp/revoke's result: the servers whose approval
// was forgotten.
type RevokeResult struct {
	Revoked []string `json:"revoked"`
}

// ApprovalRequest is an Approval as agent/requestApproval and
// agent/approvals send it: a write approval also carries the whole
// proposed file, so a client can show it in a real diff editor.
type ApprovalRequest struct {
	Approval
	Diff *ApprovalDiff `json:"diff,omitempty"`
}

// ApprovalDiff is a write approval's change: the file and its whole text
// after the write. The text before is the client's own buffer (or the file).
type ApprovalDiff struct {
	URI     string `json:"uri"`
	NewText string `json:"newText"`
	Exists  bool   `json:"exists"`
}

// ApprovalsResult is agent/approvals' result: the approvals waiting.
type ApprovalsResult struct {
	Approvals []ApprovalRequest `json:"approvals"`
}

// TaskStarted is the result of the agentls.run and agentls.prompt
// commands: the task they started (they return at once).
type TaskStarted struct {
	TaskID string `json:"taskId"`
}

// SessionResult names a session: the result of the agentls.newChat and
// agentls.compact commands (compact goes on in the background).
type SessionResult struct {
	SessionID string `json:"sessionId"`
}

// TranscriptResult is the agentls.transcript command's result: the
// session and its Markdown transcript, as a path and a file URI.
type TranscriptResult struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	URI       string `json:"uri"`
}

// Version is the version of this protocol (docs/protocol.md's title),
// announced in initialize's experimental capabilities.
const Version = 1

// Experimental is the experimental capability agentls announces in
// initialize: {"agentls": {"version": 1}}.
type Experimental struct {
	Agentls ProtocolVersion `json:"agentls"`
}

// ProtocolVersion is the version of the agent/* protocol a server speaks.
type ProtocolVersion struct {
	Version int `json:"version"`
}
