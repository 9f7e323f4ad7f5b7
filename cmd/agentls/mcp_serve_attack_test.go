package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/mcpserve/mcpservetest"
)

// An outside agent attacking `agentls mcp serve --http`: what it may
// change itself (the workspace, where a sandboxed agent can write) must
// not get it past the card or out of the workspace folders.

// servedOnTerminal is `agentls mcp serve --http` on a real terminal, and
// the official SDK's client named client connected to it with the token.
type servedOnTerminal struct {
	term      *terminalRun
	screen    string // what the terminal showed once it listened
	url       string
	tokenFile string
	token     string
	cs        *sdk.ClientSession
}

func serveOnTerminal(t *testing.T, e *runEnv, client string) *servedOnTerminal {
	t.Helper()
	term := onTerminal(t, e, "mcp serve --http", 200, 60)
	screen := term.wait("a generic MCP client", true)
	url := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(screen)
	file := regexp.MustCompile(`bearer token in (\S+)`).FindStringSubmatch(screen)
	if url == nil || file == nil {
		t.Fatalf("the terminal does not say where it listens and where the token is:\n%s", screen)
	}
	raw, err := os.ReadFile(file[1])
	if err != nil {
		t.Fatal(err)
	}
	s := &servedOnTerminal{term: term, screen: screen, url: url[1], tokenFile: file[1], token: strings.TrimSpace(string(raw))}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	s.cs = mcpservetest.Connect(t, &sdk.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: mcpservetest.Bearer{Token: s.token, Next: tr}}}, client, "", nil)
	return s
}

type callResult struct {
	text  string
	isErr bool
}

// callAsync calls a tool without waiting for its card to be answered.
func (s *servedOnTerminal) callAsync(name string, args map[string]any) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		res, err := s.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			ch <- callResult{err.Error(), true}
			return
		}
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text += tc.Text
			}
		}
		ch <- callResult{text, res.IsError}
	}()
	return ch
}

// TestMCPServeReadNeverFollowsALinkSwappedInWhileTheCardWaits: the
// outside agent asks to read a file that holds secrets inside the
// workspace; while its card waits, it swaps the folder on the way for a
// link to a folder outside the workspace (a rename, as a sandboxed agent
// that may write the workspace can). The user allows the read of the file
// inside; the read must not then return the file outside. Likewise
// list_directory of a secret folder must not list the folder outside.
func TestMCPServeReadNeverFollowsALinkSwappedInWhileTheCardWaits(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	outside := filepath.Join(filepath.Dir(e.ws), "outside")
	for path, text := range map[string]string{
		filepath.Join(e.ws, "keys", ".git-credentials"):     "https://inside:kept@example.com\n",
		filepath.Join(outside, ".git-credentials"):          "https://STOLEN:outside@example.com\n",
		filepath.Join(e.ws, "dir", ".ssh", "known_hosts"):   "inside\n",
		filepath.Join(outside, ".ssh", "id_ed25519-STOLEN"): "outside\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := serveOnTerminal(t, e, "sandboxed-agent")
	swap := func(inside, to string) {
		t.Helper()
		if err := os.Rename(inside, inside+"-was"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(to, inside); err != nil {
			t.Fatal(err)
		}
	}

	read := s.callAsync("read_document", map[string]any{"path": "keys/.git-credentials"})
	screen := s.term.wait("[N] deny:", false)
	if !strings.Contains(screen, "sandboxed-agent (MCP, HTTP") || !strings.Contains(screen, ".git-credentials") {
		t.Fatalf("the card does not name the client and the file:\n%s", screen)
	}
	swap(filepath.Join(e.ws, "keys"), outside)
	s.term.keys("y", "Enter")
	if r := <-read; !r.isErr || strings.Contains(r.text, "STOLEN") || !strings.Contains(r.text, "changed into a link after it was checked") {
		t.Errorf("read_document allowed for keys/.git-credentials inside the workspace answered %+v: the file outside it, reached through the link swapped in while the card waited", r)
	}

	list := s.callAsync("list_directory", map[string]any{"path": "dir/.ssh"})
	s.term.wait("List "+filepath.Join(e.ws, "dir", ".ssh"), false)
	swap(filepath.Join(e.ws, "dir"), outside)
	s.term.keys("y", "Enter")
	if r := <-list; !r.isErr || strings.Contains(r.text, "STOLEN") || !strings.Contains(r.text, "changed into a link after it was checked") {
		t.Errorf("list_directory allowed for dir/.ssh inside the workspace answered %+v, want an error saying the folder changed into a link, not the folder outside it", r)
	}
}
