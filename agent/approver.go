package agent

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// Approver asks the user. It returns the chosen optionId; any error, a
// cancelled ctx or an empty answer is a denial. Implemented by server/ for
// editors and by cmd/agentls for the terminal.
type Approver interface {
	RequestApproval(ctx context.Context, a wire.Approval) (optionID string, err error)
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
	RequestForm(ctx context.Context, a wire.Approval) (optionID string, content map[string]any, err error)
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
	Event(e wire.Event)
}
