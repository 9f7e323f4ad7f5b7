package tools

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/mcp"
)

// A server names its own tools; a hostile name must not erase, fake or hide
// a line of the mcp_call card in a terminal or an editor.
func TestMCPCallCardEscapesTheServersToolName(t *testing.T) {
	args := []byte(`{"path":"a.txt"}`)
	tests := []struct {
		name, tool, shown string
	}{
		{"an ordinary name is shown as is", "read_text_file", "read_text_file"},
		{"a name with spaces and dots is shown as is", "get file.v2", "get file.v2"},
		{"an ANSI erase-line escape is shown escaped", "ok\x1b[2Kevil", `$'ok\x1b[2Kevil'`},
		{"a newline cannot fake a line", "ok\nallowed by policy", `$'ok\nallowed by policy'`},
		{"a bidi override is shown escaped", "ok\u202eevil", `$'ok\u202eevil'`},
		{"a zero-width space is shown escaped", "ok\u200bevil", `$'ok\u200bevil'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			title, detail := mcpCallCard(mcp.Tool{Server: "srv", ServerTool: tc.tool}, args)
			if want := "Call srv · " + tc.shown + "?"; title != want {
				t.Errorf("title = %q, want %q", title, want)
			}
			first, rest, _ := strings.Cut(detail, "\n")
			if want := "srv · " + tc.shown; first != want {
				t.Errorf("detail's first line = %q, want %q", first, want)
			}
			if !strings.Contains(rest, `"path": "a.txt"`) {
				t.Errorf("detail = %q, want the arguments after the name", detail)
			}
			for _, bad := range []string{"\x1b", "\u202e", "\u200b"} {
				if strings.Contains(title+detail, bad) {
					t.Errorf("card carries %q raw: %q / %q", bad, title, detail)
				}
			}
		})
	}
}
