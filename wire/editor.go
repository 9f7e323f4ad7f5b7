package wire

import "encoding/json"

// The editor extras (docs/protocol.md sections 1 and 9): what an editor
// offers an outside MCP agent besides its documents. A client announces
// the ones it answers in capabilities.experimental.agentls.editor; the
// server sends the agent/editor/* requests of those only, and lists only
// their MCP tools. Paths are absolute file-system paths, not URIs.

// EditorExtras are the extras a client announces it answers.
type EditorExtras struct {
	// Tabs: agent/editor/tabs and agent/editor/closeTab.
	Tabs bool `json:"tabs,omitempty"`
	// Terminals: agent/editor/terminals, createTerminal, sendTerminal
	// and readTerminal, on the terminals agentls created only.
	Terminals bool `json:"terminals,omitempty"`
	// Tasks: agent/editor/tasks and agent/editor/runTask.
	Tasks bool `json:"tasks,omitempty"`
	// Diagnostics: agent/editor/diagnostics, every diagnostic the editor
	// holds (all its language servers).
	Diagnostics bool `json:"diagnostics,omitempty"`
}

// EditorTab is one open tab of the editor.
type EditorTab struct {
	// Path is the tab's file, "" for a tab that is not a file.
	Path   string `json:"path"`
	Label  string `json:"label"`
	Active bool   `json:"active"`
	// Dirty: the tab has unsaved changes.
	Dirty bool `json:"dirty"`
	// Group is the tab group (VS Code's view column, Neovim's tabpage).
	Group int `json:"group"`
}

// EditorTabsResult is agent/editor/tabs's result.
type EditorTabsResult struct {
	Tabs []EditorTab `json:"tabs"`
}

// EditorCloseTabParams are agent/editor/closeTab's params.
type EditorCloseTabParams struct {
	Path string `json:"path"`
}

// EditorCloseTabResult says whether the tab was closed; the editor never
// closes one with unsaved changes (closed false, reason says so).
type EditorCloseTabResult struct {
	Closed bool   `json:"closed"`
	Reason string `json:"reason,omitempty"`
}

// EditorTerminal is one terminal agentls created in the editor.
type EditorTerminal struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// EditorTerminalsResult is agent/editor/terminals's result: only the
// terminals agentls created (a user's own is never read or written).
type EditorTerminalsResult struct {
	Terminals []EditorTerminal `json:"terminals"`
}

// EditorCreateTerminalParams are agent/editor/createTerminal's params.
type EditorCreateTerminalParams struct {
	Name string `json:"name"`
	Cwd  string `json:"cwd"`
}

// EditorTerminalID is agent/editor/createTerminal's result.
type EditorTerminalID struct {
	ID string `json:"id"`
}

// EditorSendTerminalParams are agent/editor/sendTerminal's params: text
// is sent as typed, with a newline.
type EditorSendTerminalParams struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// EditorReadTerminalParams are agent/editor/readTerminal's params.
type EditorReadTerminalParams struct {
	ID       string `json:"id"`
	MaxBytes int    `json:"maxBytes"`
}

// EditorReadTerminalResult is the terminal's latest output, at most
// maxBytes from the end.
type EditorReadTerminalResult struct {
	Text string `json:"text"`
}

// EditorTask is one task of the editor's task runner.
type EditorTask struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	// Detail is the command line or the task definition as text: what
	// run_task's card shows.
	Detail string `json:"detail"`
}

// EditorTasksResult is agent/editor/tasks's result.
type EditorTasksResult struct {
	Tasks []EditorTask `json:"tasks"`
}

// EditorRunTaskParams are agent/editor/runTask's params.
type EditorRunTaskParams struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// EditorRunTaskResult answers when the task ends (or at once for a
// background task, with no exitCode).
type EditorRunTaskResult struct {
	ExitCode *int `json:"exitCode,omitempty"`
}

// EditorDiagnosticsParams are agent/editor/diagnostics's params: path
// narrows to one file.
type EditorDiagnosticsParams struct {
	Path string `json:"path,omitempty"`
}

// EditorDiagnosticsResult is every diagnostic the editor holds, per file.
type EditorDiagnosticsResult struct {
	Files []EditorFileDiagnostics `json:"files"`
}

// EditorFileDiagnostics are one file's diagnostics, LSP Diagnostic objects.
type EditorFileDiagnostics struct {
	Path        string            `json:"path"`
	Diagnostics []json.RawMessage `json:"diagnostics"`
}

// Empty is the result {} of a request that answers nothing more.
type Empty struct{}
