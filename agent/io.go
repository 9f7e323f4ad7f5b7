package agent

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// The wire types the core produces; package protocol defines them.
type (
	ApprovalOption = wire.ApprovalOption
	Approval       = wire.Approval
	FileDiff       = wire.FileDiff
	Event          = wire.Event
	Usage          = wire.Usage
	ToolKind       = wire.ToolKind
)

// Approver asks the user. It returns the chosen optionId; any error, a
// cancelled ctx or an empty answer is a denial. Implemented by server/ for
// editors and by cmd/agentls for the terminal.
type Approver interface {
	RequestApproval(ctx context.Context, a Approval) (optionID string, err error)
}

// ErrNobodyToAsk is what an Approver returns (or wraps) when no person can
// answer (agentls run with no terminal): the call is refused, and the
// model is told nobody could be asked rather than that the user said no.
var ErrNobodyToAsk = errors.New("nobody could be asked")

// FormApprover is an Approver that can also show an MCP server's form
// (an elicitation approval's fields) and return what the user entered,
// with option wire.OptionAccept. ShowsForms reports whether it can now
// (an editor's client may lack the UI); when it cannot, the card offers
// only what a pick among choices can answer.
type FormApprover interface {
	Approver
	ShowsForms() bool
	RequestForm(ctx context.Context, a Approval) (optionID string, content map[string]any, err error)
}

// URLOpener is an Approver that can send the user to a URL: the editor's
// browser (LSP window/showDocument), or a line with the URL to open. An
// MCP server's URL question, and a remote server's OAuth authorization,
// go through it; an Approver without it declines URL questions. The core
// hands it only web pages (IsWebPage): every URL it opens is a server's.
type URLOpener interface {
	OpenURL(ctx context.Context, url string) error
}

// IsWebPage reports whether u is a page for the browser: http or https
// with a host. A file:, command:, vscode: or other URI handed to an
// editor's opener would open or run something on the user's machine.
func IsWebPage(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != ""
}

// openWebPage is the one way the core sends the user to a server's URL
// (a URL question, an OAuth authorization page): only a web page, else an
// error saying so.
func openWebPage(ctx context.Context, opener URLOpener, u string) error {
	if !IsWebPage(u) {
		return fmt.Errorf("agentls opens only http and https pages, not %s", trust.Visible(u))
	}
	return opener.OpenURL(ctx, u)
}

// EventSink receives a task's events in order. It must not block for long.
type EventSink interface {
	Event(e Event)
}

// Workspace is the agent's view of the editor: unsaved buffers and edits that
// land in the editor (and its undo). Implemented by server/ over LSP and by
// cmd/agentls over the disk.
type Workspace = tools.Workspace

// Snapshot is a file as an edit was computed from it ([tools.Snapshot]).
type Snapshot = tools.Snapshot

// ErrFileChanged is what a Workspace's WriteFile wraps when the file is no
// longer the Snapshot the edit was computed from ([tools.ErrFileChanged]).
var ErrFileChanged = tools.ErrFileChanged

// ErrNotOpen is what a Workspace's WriteFile wraps for a file the editor
// has not opened with it: the caller writes the disk ([tools.ErrNotOpen]).
var ErrNotOpen = tools.ErrNotOpen
