package trust

// Visible is s as is when every character is visible, else $'…' with each
// control or invisible character escaped, as LaunchCard shows argv words.
// Use it for names an MCP server chose before they reach a card: a tool
// name carrying a newline, a terminal escape or a bidi override would
// otherwise fake or hide a line of what the user approves.
func Visible(s string) string {
	return shown(s)
}
