package agent

import (
	"context"
	"encoding/json"
)

// ApprovalOption is one choice on an approval card.
type ApprovalOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"` // "allow_once" | "allow_always" | "reject_once"
}

// Approval is one question to the user (PROTOCOL.md section 4).
type Approval struct {
	ApprovalID string           `json:"approvalId"`
	TaskID     string           `json:"taskId,omitempty"`
	Kind       string           `json:"kind"` // "mcp_launch" | "mcp_call" | "command" | "write" | "read"
	Title      string           `json:"title"`
	Detail     string           `json:"detail"`
	Server     string           `json:"server,omitempty"`
	Tool       string           `json:"tool,omitempty"`
	Arguments  json.RawMessage  `json:"arguments,omitempty"`
	Command    []string         `json:"command,omitempty"`
	Env        [][2]string      `json:"env,omitempty"`
	Cwd        string           `json:"cwd,omitempty"`
	URL        string           `json:"url,omitempty"`         // mcp_launch of a remote server
	Headers    []string         `json:"headerNames,omitempty"` // its header names (never values)
	Options    []ApprovalOption `json:"options"`
	// ToolCallID is the tool call this approval gates ("" for a launch
	// card). Diff is the whole change a write approval asks for. ACP shows
	// both; the LSP approval carries Diff as "diff" (PROTOCOL.md section 4).
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

// Approver asks the user. It returns the chosen optionId; any error, a
// cancelled ctx or an empty answer is a denial. Implemented by server/ for
// editors and by cmd/agentls for the terminal.
type Approver interface {
	RequestApproval(ctx context.Context, a Approval) (optionID string, err error)
}

// Event is one agent/event notification (PROTOCOL.md section 3).
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
	Type       string          `json:"type"` // text | tool_call | tool_result | approval | status | done
	Delta      string          `json:"delta,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Server     string          `json:"server,omitempty"`
	Title      string          `json:"title,omitempty"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	Status     string          `json:"status,omitempty"`
	Output     string          `json:"output,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	ApprovalID string          `json:"approvalId,omitempty"`
	State      string          `json:"state,omitempty"`
	OptionID   string          `json:"optionId,omitempty"`
	Message    string          `json:"message,omitempty"`
	StopReason string          `json:"stopReason,omitempty"`
	Text       string          `json:"text,omitempty"`
	Usage      *Usage          `json:"usage,omitempty"`
	// Kind and Locations come with a call's first tool_call: what the tool
	// does and the files it names (absolute). They are not part of the LSP
	// event (PROTOCOL.md section 3); ACP's tool_call carries them.
	Kind      ToolKind `json:"-"`
	Locations []string `json:"-"`
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

// EventSink receives a task's events in order. It must not block for long.
type EventSink interface {
	Event(e Event)
}

// Workspace is the agent's view of the editor: unsaved buffers and edits that
// land in the editor (and its undo). Implemented by server/ over LSP and by
// cmd/agentls over the disk.
type Workspace interface {
	// Folders are the workspace roots, absolute paths.
	Folders() []string
	// OpenText returns the open buffer's text for an absolute path, if open.
	OpenText(path string) (text string, ok bool)
	// WriteFile replaces a file's whole text through the editor. applied is
	// false when the editor cannot apply edits; the caller then writes the disk.
	WriteFile(ctx context.Context, path, text string) (applied bool, err error)
}
