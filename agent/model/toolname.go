package model

import (
	"fmt"
	"regexp"
)

// toolName is the strictest tool-name rule of the providers agentls speaks
// to (SPEC.md "Tool names").
var toolName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`)

// checkTools is the last guard before the wire: MCP naming should already
// have made every name valid and unique, and a name that still is not never
// reaches the provider (it would fail the whole request, or with a lax
// server, let a crafted name collide with another tool).
func checkTools(provider string, tools []ToolDef) error {
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		if !toolName.MatchString(t.Name) {
			return fmt.Errorf("%s: tool name %q is not allowed: it must match %s", provider, t.Name, toolName)
		}
		if seen[t.Name] {
			return fmt.Errorf("%s: tool name %q is offered twice: names must be unique", provider, t.Name)
		}
		seen[t.Name] = true
	}
	return nil
}
