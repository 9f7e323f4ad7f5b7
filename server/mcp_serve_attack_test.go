package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/mcpserve/mcpservetest"
)

// An outside agent attacking an editor session's MCP listener (a real
// `agentls serve` with [serve] mcp = true, its editor a raw LSP client).

// TestMCPServeSubscribesOnlyToDocumentsItLists: a client subscribes to a
// file outside the workspace folders the user has open in the editor;
// it must learn nothing of it (no notifications/resources/updated when
// the user edits it), as it is never listed or read.
func TestMCPServeSubscribesOnlyToDocumentsItLists(t *testing.T) {
	c, ed, connect := startExtrasEditor(t, `{"approvals":true}`)
	outside := filepath.Join(t.TempDir(), "diary.txt")
	os.WriteFile(outside, []byte("dear diary\n"), 0o600)
	updated := make(chan string, 16)
	cs := connect("spy", "2025-11-25", &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
		updated <- r.Params.URI
	}})
	uri := pathToURI(outside)
	if err := cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "not a file inside the workspace folders") {
		t.Errorf("subscribing to %s outside the workspace = %v, want an error saying it is not inside the workspace folders", uri, err)
	}
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"plaintext","version":1,"text":"dear diary\n"}}}`, uri))
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":2},"contentChanges":[{"text":"dear diary, secret\n"}]}}`, uri))
	// Then a document inside, subscribed to, opened and changed: its
	// updates come after any of the diary's, on the same stream.
	inside := pathToURI(filepath.Join(ed.root, "a.txt"))
	if err := cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: inside}); err != nil {
		t.Fatalf("subscribing to a.txt inside the workspace: %v", err)
	}
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"plaintext","version":1,"text":"a\n"}}}`, inside))
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":2},"contentChanges":[{"text":"a2\n"}]}}`, inside))
	for {
		select {
		case u := <-updated:
			if u == uri {
				t.Fatalf("the client was told %s changed: a document outside the workspace folders", u)
			}
			if u == inside {
				return
			}
		case <-time.After(waitLimit):
			t.Fatalf("no notifications/resources/updated of %s", inside)
		}
	}
}

// TestMCPServeCardNamesTheClientAsItsOwnText: a client whose clientInfo
// name forges another connection's label ("claude-code (MCP, stdio
// connection 1)"), or a line of a card of its own, must not read on the
// card as that connection: the name is shown quoted, as its own text,
// before the connection it really came over; a plain name stays as is.
func TestMCPServeCardNamesTheClientAsItsOwnText(t *testing.T) {
	_, ed, connect := startExtrasEditor(t, `{"approvals":true}`)
	if err := os.WriteFile(filepath.Join(ed.root, ".git-credentials"), []byte("https://u:p@example.com\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, shown string }{
		{"claude-code (MCP, stdio connection 1)", `"claude-code (MCP, stdio connection 1)" (MCP, HTTP connection `},
		{"x (MCP, stdio connection 1) asks: Read README?\n", `"x (MCP, stdio connection 1) asks: Read README?\n" (MCP, HTTP connection `},
		{"\u202eedoc-edualc", `"\u202eedoc-edualc" (MCP, HTTP connection `},
		{"Claude Code 2.1", "Claude Code 2.1 (MCP, HTTP connection "},
	} {
		cs := connect(c.name, "2025-11-25", nil)
		_, before, _, _, _ := ed.snapshot()
		if text, isErr := mcpservetest.Call(t, cs, "read_file", map[string]any{"path": ".git-credentials"}); !isErr || !strings.Contains(text, "denied") {
			t.Errorf("%q: read_file of .git-credentials = %q, want denied by its card", c.name, text)
		}
		_, cards, _, _, _ := ed.snapshot()
		if len(cards) != len(before)+1 {
			t.Fatalf("%q: %d cards shown, want one", c.name, len(cards)-len(before))
		}
		card := cards[len(cards)-1]
		if !strings.HasPrefix(card.RequestedBy, c.shown) || !strings.HasPrefix(card.Title, card.RequestedBy+" asks: Read ") {
			t.Errorf("%q: the card says requestedBy %q, title %q; want it to start %q", c.name, card.RequestedBy, card.Title, c.shown)
		}
	}
}
