// Package agent is the loop every editor drives: sessions, the tool loop over
// a model provider, built-in tools, the MCP registry's tools, and the gates of
// package trust. It never knows about LSP: it asks through Approver, streams
// through EventSink and edits through Workspace.
package agent

// STUB: the contract server/ and cmd/agentls compile against. The agent owner
// replaces the bodies; the signatures may grow but should not change.

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

// Options build a Core.
type Options struct {
	Config   *config.Config
	Registry *mcp.Registry  // nil: no MCP servers
	Store    *trust.Store   // nil: nothing trusted, nothing always-allowed
	Provider model.Provider // nil: chosen from Config at the first run (SPEC.md defaults)
	StateDir string         // sessions and transcripts; "" = config.StateDir()
	Logf     func(format string, args ...any)
}

// Core is one agentls process's agent: it runs tasks and owns sessions.
type Core struct{}

// New makes a Core. It starts nothing.
func New(opts Options) (*Core, error) { return &Core{}, errors.New("unimplemented") }

// Range is an LSP range, 0-based, UTF-16 characters as LSP sends them.
type Range struct {
	StartLine, StartChar, EndLine, EndChar int
}

// RunRequest is one agent/run.
type RunRequest struct {
	Prompt      string
	SessionID   string            // "" = new session
	Document    string            // absolute path of the active document, or ""
	Range       *Range            // selection in Document
	Diagnostics []json.RawMessage // LSP Diagnostic objects the client sent
}

// TaskIO connects one task to its front end.
type TaskIO struct {
	Approver  Approver  // nil: every approval is denied
	Events    EventSink // nil: events dropped
	Workspace Workspace // nil: the disk, rooted at the process's cwd
}

// Result is how a task ended (PROTOCOL.md agent/run result).
type Result struct {
	TaskID     string `json:"taskId"`
	SessionID  string `json:"sessionId"`
	StopReason string `json:"stopReason"` // end_turn | cancelled | max_iterations | error
	Text       string `json:"text"`
	Error      string `json:"error,omitempty"`
	Usage      Usage  `json:"usage"`
}

// Task is a running or finished task.
type Task struct {
	ID        string
	SessionID string
	Prompt    string
	StartedAt time.Time
}

// Done is closed when the task has ended.
func (t *Task) Done() <-chan struct{} { return nil }

// Result is valid after Done is closed.
func (t *Task) Result() Result { return Result{} }

// Start starts a task in the background and returns at once.
func (c *Core) Start(req RunRequest, io TaskIO) *Task { return &Task{} }

// Cancel cancels one task; false if unknown or already done.
func (c *Core) Cancel(taskID string) bool { return false }

// CancelSession cancels every task of a session.
func (c *Core) CancelSession(sessionID string) {}

// TaskInfo is one row of agent/tasks.
type TaskInfo struct {
	TaskID    string    `json:"taskId"`
	SessionID string    `json:"sessionId"`
	State     string    `json:"state"` // running | awaiting_approval | done
	Prompt    string    `json:"prompt"`
	StartedAt time.Time `json:"startedAt"`
}

// Tasks lists the running tasks.
func (c *Core) Tasks() []TaskInfo { return nil }

// NewChat cancels a session's tasks and returns a new empty session's id.
func (c *Core) NewChat(sessionID string) string { return "" }

// SessionInfo is one row of agent/sessions.
type SessionInfo struct {
	SessionID string    `json:"sessionId"`
	Title     string    `json:"title"`
	UpdatedAt time.Time `json:"updatedAt"`
	Turns     int       `json:"turns"`
}

// Sessions lists the stored sessions of this workspace, newest first.
func (c *Core) Sessions() ([]SessionInfo, error) { return nil, errors.New("unimplemented") }

// TranscriptPath is the Markdown transcript of a session (under the state dir).
func (c *Core) TranscriptPath(sessionID string) string { return "" }

// ToolRow is one tool of the server list with its policy, decided by the
// same code that decides calls.
type ToolRow struct {
	mcp.Tool
	Policy       trust.Action `json:"policy"`
	PolicyReason string       `json:"policyReason,omitempty"`
}

// ServerRow is one row of agent/mcp/servers (PROTOCOL.md Server).
type ServerRow struct {
	mcp.ServerInfo
	Tools []ToolRow `json:"tools"`
}

// ServerList is the server list of PROTOCOL.md section 2.
func (c *Core) ServerList() []ServerRow { return nil }

// TrustServer shows the launch card for a workspace server through the
// approver, records consent and starts it. Returns the server's state.
func (c *Core) TrustServer(ctx context.Context, name string, ap Approver) (mcp.State, error) {
	return "", errors.New("unimplemented")
}

// RevokeServer forgets launch consent (one server, or all when name is "").
// It never kills a running server.
func (c *Core) RevokeServer(name string) ([]string, error) { return nil, errors.New("unimplemented") }

// Close cancels every task (each ends "cancelled") and waits for them.
func (c *Core) Close() {}
