package mcpserve

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A name is shown as is only when it is letters, digits, single spaces
// between words and ._-/@+# (docs/protocol.md section 3): a space at
// either end or two in a row (which a card's reader cannot count) quote
// it, as any other character does.
func TestClientNameQuotesAllButPlainWords(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"claude-code", "claude-code"},
		{"Visual Studio Code", "Visual Studio Code"},
		{"hermes-agent 1.2+git@host/x#1", "hermes-agent 1.2+git@host/x#1"},
		{"Zéd 日本", "Zéd 日本"},
		{" claude-code", `" claude-code"`},
		{"claude-code ", `"claude-code "`},
		{"claude  code", `"claude  code"`},
		{"claude\tcode", `"claude\tcode"`},
		{"a: b", `"a: b"`},
		{"", "an MCP client that gave no name"},
		{strings.Repeat("a", 70), strings.Repeat("a", 64) + "…"},
		{strings.Repeat("a", 63) + "(x)", `"` + strings.Repeat("a", 63) + `("…`},
	} {
		if got := clientName(&sdk.Implementation{Name: c.name}); got != c.want {
			t.Errorf("clientName(%q) = %s, want %s", c.name, got, c.want)
		}
	}
}
