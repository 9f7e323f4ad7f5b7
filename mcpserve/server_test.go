package mcpserve

import (
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStdioWithNoEditorOffersNothingThatAsks: the real `agentls mcp serve`
// with no editor session serves the folder's disk to the official SDK's
// client at both revisions; with nobody to answer a card (stdio is the
// client's) the tools that ask are not listed, and a read that would ask
// is refused, never done.
func TestStdioWithNoEditorOffersNothingThatAsks(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			w := newWorld(t)
			cs := connect(t, &sdk.CommandTransport{Command: w.agentlsCmd(t, "mcp", "serve")}, "test-agent", version)
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated %s, want %s", got, version)
			}
			want := []string{"find_files", "list_directory", "read_document", "read_file", "search_text", "workspace_folders"}
			if got := toolNames(t, cs); !slices.Equal(got, want) {
				t.Errorf("tools = %v, want %v (nothing that asks, nothing an absent editor has)", got, want)
			}
			if text, isErr := call(t, cs, "read_document", map[string]any{"path": "greeting.txt"}); isErr || text != "say hello\n" {
				t.Errorf("read_document = %q (error %v), want the file's text", text, isErr)
			}
			if text, isErr := call(t, cs, "workspace_folders", nil); isErr || text != w.ws {
				t.Errorf("workspace_folders = %q, want %q", text, w.ws)
			}
			text, isErr := call(t, cs, "read_document", map[string]any{"path": ".git-credentials"})
			if !isErr || strings.Contains(text, "u:p@") || !strings.Contains(text, "nobody could be asked") {
				t.Errorf("a secret file with nobody to ask = %q (error %v), want it denied unread", text, isErr)
			}
			if text, isErr := call(t, cs, "read_file", map[string]any{"path": "../../etc/passwd"}); !isErr || !strings.Contains(text, "outside the workspace") {
				t.Errorf("read_file outside = %q, want refused", text)
			}
		})
	}
}
