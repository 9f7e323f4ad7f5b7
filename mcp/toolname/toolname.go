// Package toolname is the one rule for the name of a tool handed to a model
// provider (docs/security.md, G4): Pattern, the strictest of the providers
// agentls speaks to (Anthropic allows 128 bytes; OpenAI-shaped and
// Gemini-shaped providers 64). One illegal name in a request fails it, and
// every later turn of the conversation with it, so the MCP registry names
// tools by this rule, the agent loop checks it when it offers a server's
// tools, and the providers refuse anything else before the wire. It
// imports nothing of agentls, so every one of them can use it.
package toolname

// Pattern is the rule as a regular expression, for messages and docs.
const Pattern = `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`

// MaxLen is the longest name the rule allows, in bytes.
const MaxLen = 64

// Valid reports whether name matches Pattern: 1 to MaxLen ASCII letters,
// digits, '_' or '-', not starting with a digit or '-'. It is hand-written
// (a regexp cost every model request a scan per offered tool).
func Valid(name string) bool {
	if len(name) == 0 || len(name) > MaxLen {
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
