package agent

import (
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

// ShellQuote renders an argv as a shell would need it typed, escaped.
func ShellQuote(argv []string) string { return trust.ShellQuote(argv) }
