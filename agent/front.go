package agent

import (
	"context"

	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

// What the fronts (server, acp, cmd/agentls) need of the layers below the
// core, so that they import agent, wire and config and never mcp or trust:
// a front presents what the core decided, it never decides (a test checks
// the imports).

// Annotations are an MCP server's own claims about a tool (untrusted: they
// only ever tighten policy).
type Annotations = mcp.Annotations

// Redact hides secrets (tokens, keys, passwords) in text meant for logs,
// events and transcripts.
func Redact(s string) string { return trust.Redact(s) }

// Visible escapes what a terminal or an editor would not show as written
// (control characters, escape sequences, bidi overrides, zero-width
// characters, newlines), for one-line subjects such as titles and names.
func Visible(s string) string { return trust.Visible(s) }

// VisibleText escapes what a terminal or an editor would not show as
// written but keeps newlines and tabs, for multi-line text such as a
// card's detail.
func VisibleText(s string) string { return trust.VisibleText(s) }

// ShellQuote renders an argv as a shell would need it typed, escaped.
func ShellQuote(argv []string) string { return trust.ShellQuote(argv) }

// RefusedRoot says why folder cannot be a workspace root for the file tools
// (it is the home directory or the root of the file system), or "".
func RefusedRoot(folder string) string { return tools.RefusedRoot(folder) }

// RefusedRootMessage is the whole explanation for a refused root: why, and
// what to do instead.
func RefusedRootMessage(reason string) string { return tools.RefusedRootMessage(reason) }

// WithToolName returns ctx carrying the name of the tool on whose behalf
// the call is made ([tools.WithToolName]).
func WithToolName(ctx context.Context, name string) context.Context {
	return tools.WithToolName(ctx, name)
}

// ToolNameFromContext is the tool name WithToolName put on ctx, or "" when
// the call was not made for a tool (a Workspace must then use a generic
// label, never guess).
func ToolNameFromContext(ctx context.Context) string { return tools.ToolNameFromContext(ctx) }

// BuiltinToolNames are the names of the built-in tools. The MCP registry
// must reserve them (mcp.Options.Reserved) so no server's tool can take one.
func BuiltinToolNames() []string { return tools.BuiltinNames() }

// FirstLine is s's first non-empty line cut to max runes ("…" marks a cut),
// for titles and progress messages that echo a prompt.
func FirstLine(s string, max int) string { return tools.FirstLine(s, max) }
