package trust

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible is s as is when every character is visible, else $'…' with each
// control or invisible character escaped, as LaunchCard shows argv words.
// Use it for names an MCP server chose before they reach a card: a tool
// name carrying a newline, a terminal escape or a bidi override would
// otherwise fake or hide a line of what the user approves.
func Visible(s string) string {
	return shown(s)
}

// VisibleText is multi-line text for a card (a write preview, a command, a
// call's arguments) with every character a terminal or an editor would not
// show as itself escaped: \r, \x1b and other control characters, bidi
// overrides and zero-width characters, invalid UTF-8. Newlines and tabs
// stay. Never redacted: a card shows exactly what will happen; redaction is
// for events, logs and transcripts.
func VisibleText(s string) string {
	if printableText(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case !unicode.IsPrint(r) && r != ' ' || unicode.Is(unicode.Cf, r):
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func printableText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && (!unicode.IsPrint(r) && r != ' ' || unicode.Is(unicode.Cf, r)) {
			return false
		}
	}
	return true
}

// ByteSize is a size a person reads at a glance: "512 B", "3 KB", "19.1 MB".
// Every size agentls shows the user or the model is written by it.
func ByteSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%d KB", (n+512)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
