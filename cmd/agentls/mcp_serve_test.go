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

// TestMCPServeHTTPAsksOnItsTerminal: `agentls mcp serve --http` on a
// real terminal prints where it listens, the token file (0600) and a
// config to paste, never the token; the official SDK's client connects
// with the token, and its calls' cards are asked on that terminal,
// naming the client: an accepted propose_edit writes, a declined
// run_command does not run.
func TestMCPServeHTTPAsksOnItsTerminal(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	hello := filepath.Join(e.ws, "hello.txt")
	if err := os.WriteFile(hello, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	term := onTerminal(t, e, "mcp serve --http", 200, 60)
	screen := term.wait("a generic MCP client", true)
	url := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(screen)
	file := regexp.MustCompile(`bearer token in (\S+)`).FindStringSubmatch(screen)
	if url == nil || file == nil {
		t.Fatalf("the terminal does not say where it listens and where the token is:\n%s", screen)
	}
	st, err := os.Stat(file[1])
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v (mode %v), want 0600", file[1], err, st.Mode().Perm())
	}
	raw, _ := os.ReadFile(file[1])
	token := strings.TrimSpace(string(raw))
	if strings.Contains(screen, token) {
		t.Errorf("the terminal shows the token:\n%s", screen)
	}
	if !strings.Contains(screen, "claude mcp add --transport http agentls "+url[1]) {
		t.Errorf("no Claude Code command to paste:\n%s", screen)
	}

	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	cs := mcpservetest.Connect(t, &sdk.StreamableClientTransport{Endpoint: url[1], HTTPClient: &http.Client{Transport: mcpservetest.Bearer{Token: token, Next: tr}}}, "claude-code", "", nil)

	type result struct {
		text  string
		isErr bool
	}
	callAsync := func(name string, args map[string]any) <-chan result {
		ch := make(chan result, 1)
		go func() {
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
			if err != nil {
				ch <- result{err.Error(), true}
				return
			}
			text := ""
			for _, c := range res.Content {
				if tc, ok := c.(*sdk.TextContent); ok {
					text += tc.Text
				}
			}
			ch <- result{text, res.IsError}
		}()
		return ch
	}

	edit := callAsync("propose_edit", map[string]any{"path": "hello.txt", "old_text": "hello", "new_text": "HELLO"})
	screen = term.wait("[N] deny:", false)
	if !strings.Contains(screen, "claude-code (MCP, HTTP") || !strings.Contains(screen, "Edit "+hello) {
		t.Errorf("the card does not name the client and the file:\n%s", screen)
	}
	term.keys("y", "Enter")
	if r := <-edit; r.isErr {
		t.Errorf("accepted propose_edit = %q", r.text)
	}
	if b, _ := os.ReadFile(hello); string(b) != "HELLO\n" {
		t.Errorf("after the accepted edit hello.txt is %q", b)
	}

	cmd := callAsync("run_command", map[string]any{"command": "touch ran.txt"})
	term.wait("touch ran.txt", true)
	term.keys("n", "Enter")
	if r := <-cmd; !r.isErr || !strings.Contains(r.text, "denied") {
		t.Errorf("declined run_command = %+v", r)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "ran.txt")); !os.IsNotExist(err) {
		t.Errorf("the declined command ran")
	}
}
