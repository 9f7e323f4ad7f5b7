package model

import "fmt"

// toolNamePattern is the strictest tool-name rule of the providers agentls
// speaks to (docs/security.md, G4); validToolName is its hand-written
// matcher (a regexp here cost every request a scan per offered tool).
const toolNamePattern = `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`

// validToolName reports whether name matches toolNamePattern: 1 to 64 ASCII
// letters, digits, '_' or '-', not starting with a digit or '-'.
func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_':
		case i > 0 && ('0' <= c && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// checkTools is the last guard before the wire: MCP naming should already
// have made every name valid and unique, and a name that still is not never
// reaches the provider (it would fail the whole request, or with a lax
// server, let a crafted name collide with another tool).
func checkTools(provider string, tools []ToolDef) error {
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		if !validToolName(t.Name) {
			return fmt.Errorf("%s: tool name %q is not allowed: it must match %s", provider, t.Name, toolNamePattern)
		}
		if seen[t.Name] {
			return fmt.Errorf("%s: tool name %q is offered twice: names must be unique", provider, t.Name)
		}
		seen[t.Name] = true
	}
	return nil
}
