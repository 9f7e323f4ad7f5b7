package model

import (
	"fmt"

	"github.com/agentls/agentls/mcp/toolname"
)

// checkTools is the last guard before the wire: MCP naming should already
// have made every name valid and unique, and a name that still is not never
// reaches the provider (it would fail the whole request, or with a lax
// server, let a crafted name collide with another tool).
func checkTools(provider string, tools []ToolDef) error {
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		if !toolname.Valid(t.Name) {
			return fmt.Errorf("%s: tool name %q is not allowed: it must match %s", provider, t.Name, toolname.Pattern)
		}
		if seen[t.Name] {
			return fmt.Errorf("%s: tool name %q is offered twice: names must be unique", provider, t.Name)
		}
		seen[t.Name] = true
	}
	return nil
}
