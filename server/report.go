package server

import (
	"fmt"
	"strings"

	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// serverReport renders the server list as Markdown for agentls.mcp.list:
// the literal command line, state, the MCP revision it speaks, error, stderr
// tail and each tool's policy.
func serverReport(rows []wire.Server) string {
	var b strings.Builder
	b.WriteString("# agentls MCP servers\n\n")
	if len(rows) == 0 {
		b.WriteString("No MCP server is configured.\n")
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "## %s (%s): %s\n\n", r.Name, r.Origin, r.State)
		if r.URL != "" {
			fmt.Fprintf(&b, "- url: %s\n", r.URL)
			if len(r.HeaderNames) > 0 {
				fmt.Fprintf(&b, "- headers: %s (values not shown)\n", strings.Join(r.HeaderNames, ", "))
			}
		} else {
			fmt.Fprintf(&b, "- command: `%s`\n", trust.ShellQuote(r.Command))
		}
		if r.Revision != "" {
			fmt.Fprintf(&b, "- speaks: MCP %s over %s\n", r.Revision, r.Transport)
		}
		if len(r.EnvKeys) > 0 {
			fmt.Fprintf(&b, "- env: %s\n", strings.Join(r.EnvKeys, ", "))
		}
		if r.Cwd != "" {
			fmt.Fprintf(&b, "- cwd: %s\n", r.Cwd)
		}
		if r.Error != "" {
			fmt.Fprintf(&b, "- error: %s\n", r.Error)
		}
		if r.StderrTail != "" {
			fmt.Fprintf(&b, "- stderr:\n\n```\n%s\n```\n", strings.TrimRight(r.StderrTail, "\n"))
		}
		if len(r.Tools) > 0 {
			fmt.Fprintf(&b, "- tools (%d schema tokens):\n", r.SchemaTokens)
			for _, t := range r.Tools {
				fmt.Fprintf(&b, "  - `%s` (%s): %s\n", t.Name, t.Policy, firstLine(t.Description))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
