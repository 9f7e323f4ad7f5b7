package mcpserve

import (
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStdioProxiesToTheEditorSession: an `agentls mcp serve` an outside
// agent starts finds the published editor session of its folder and
// passes the session through: the tools are the session's (propose_edit
// among them, since a card can be answered there), and the card names the
// outside agent by its own clientInfo, at both revisions.
func TestStdioProxiesToTheEditorSession(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			w := newWorld(t)
			ap := &cards{opt: "reject_once"}
			l := w.listen(t, ap)
			remove, err := Publish(w.state, Endpoint{PID: os.Getpid(), URL: l.URL, TokenFile: l.TokenFile, Socket: l.Socket, Folders: []string{w.ws}, Editor: "Neovim", Started: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(remove)

			cs := connect(t, &sdk.CommandTransport{Command: w.agentlsCmd(t, "mcp", "serve")}, "hermes-agent", version)
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated %s through the proxy, want %s", got, version)
			}
			if names := toolNames(t, cs); !slices.Contains(names, "propose_edit") || !slices.Contains(names, "run_command") {
				t.Fatalf("tools through the proxy = %v, want the editor session's (propose_edit, run_command)", names)
			}
			text, isErr := call(t, cs, "run_command", map[string]any{"command": "touch proxied.txt"})
			if !isErr || !strings.Contains(text, "denied") {
				t.Errorf("declined run_command = %q (error %v)", text, isErr)
			}
			if _, err := os.Stat(w.ws + "/proxied.txt"); !os.IsNotExist(err) {
				t.Errorf("the declined command ran: %v", err)
			}
			shown := ap.shown()
			if len(shown) != 1 || shown[0].Kind != "command" || !strings.HasPrefix(shown[0].RequestedBy, "hermes-agent (MCP, HTTP") {
				t.Fatalf("cards = %+v, want one command card naming hermes-agent", shown)
			}
			if text, isErr := call(t, cs, "read_document", map[string]any{"path": "greeting.txt"}); isErr || text != "say hello\n" {
				t.Errorf("read_document through the proxy = %q (error %v)", text, isErr)
			}
		})
	}
}

// TestProxySendsTheTokenOnlyToLoopback: an endpoint file naming another
// host is refused before the token is read or anything is sent.
func TestProxySendsTheTokenOnlyToLoopback(t *testing.T) {
	for _, u := range []string{"http://example.com/mcp", "https://127.0.0.1:1/mcp", "http://127.0.0.1.example.com:80/mcp"} {
		err := Proxy(t.Context(), Endpoint{URL: u, TokenFile: "/nonexistent"}, strings.NewReader(""), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "endpoint") {
			t.Errorf("Proxy to %s = %v, want it refused", u, err)
		}
	}
}
