package mcpserve

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/mcpserve/mcpservetest"
)

// listen serves w's disk over HTTP with ap answering the cards.
func (w *world) listen(t *testing.T, ap agent.Approver) *Listener {
	t.Helper()
	srv := New(DiskEditor(w.core, w.ws, ap), Options{Logf: t.Logf})
	l, err := srv.ListenHTTP(context.Background(), TokenPath(w.state, os.Getpid()), SocketPath(w.state, os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

// post sends one raw request the way a browser page or another program
// could, with the headers given.
func post(t *testing.T, url string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// TestHTTPRefusesWhatIsNotTheUsersClient: the listener is on 127.0.0.1;
// a request without the token, with a wrong one, with a Host that is not
// loopback (DNS rebinding) or from a web page's Origin is refused before
// the MCP server sees it, and no answer carries a CORS header.
func TestHTTPRefusesWhatIsNotTheUsersClient(t *testing.T) {
	w := newWorld(t)
	l := w.listen(t, nil)
	if !strings.HasPrefix(l.URL, "http://127.0.0.1:") {
		t.Fatalf("URL = %s, want loopback", l.URL)
	}
	st, err := os.Stat(l.TokenFile)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v, mode %v; want 0600", l.TokenFile, err, st.Mode().Perm())
	}
	if st, err := os.Lstat(l.Socket); err != nil || st.Mode()&os.ModeSocket == 0 || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o600) {
		t.Fatalf("socket %s: %v (mode %v), want a socket, 0600", l.Socket, err, st.Mode())
	}
	raw, _ := os.ReadFile(l.TokenFile)
	token := strings.TrimSpace(string(raw))
	if token != l.Token() || len(token) != 64 {
		t.Fatalf("token file holds %d characters, not the listener's 32-byte token", len(token))
	}
	port := l.URL[len("http://127.0.0.1:") : len(l.URL)-len("/mcp")]
	for _, c := range []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"a wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", 64)}, http.StatusUnauthorized},
		{"the token as a Basic credential", map[string]string{"Authorization": "Basic " + token}, http.StatusUnauthorized},
		{"a rebinding Host", map[string]string{"Authorization": "Bearer " + token, "Host": "evil.example:" + port}, http.StatusForbidden},
		{"a web page's Origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "https://evil.example"}, http.StatusForbidden},
		{"the right token", map[string]string{"Authorization": "Bearer " + token}, http.StatusOK},
		{"the right token from localhost", map[string]string{"Authorization": "Bearer " + token, "Host": "localhost:" + port}, http.StatusOK},
	} {
		resp := post(t, l.URL, c.headers)
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.want)
		}
		for k := range resp.Header {
			if strings.HasPrefix(strings.ToLower(k), "access-control-") {
				t.Errorf("%s: answer carries %s: %q", c.name, k, resp.Header.Get(k))
			}
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.TokenFile); !os.IsNotExist(err) {
		t.Errorf("token file still there after Close: %v", err)
	}
	if _, err := os.Stat(l.Socket); !os.IsNotExist(err) {
		t.Errorf("socket still there after Close: %v", err)
	}
}

// TestHTTPProposeEditThroughTheCard: the official SDK's client over
// Streamable HTTP at both revisions; propose_edit shows the write card
// naming the client and its connection, changes nothing when declined and
// writes when accepted (here the disk: no editor is served).
func TestHTTPProposeEditThroughTheCard(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			w := newWorld(t)
			ap := &cards{opt: "reject_once"}
			l := w.listen(t, ap)
			cs := connect(t, &sdk.StreamableClientTransport{Endpoint: l.URL, HTTPClient: &http.Client{Transport: mcpservetest.Bearer{Token: l.Token()}}}, "claude-code", version)
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated %s, want %s", got, version)
			}
			names := toolNames(t, cs)
			for _, want := range []string{"propose_edit", "run_command", "git_status", "agentls_sessions", "agentls_transcript"} {
				if !slices.Contains(names, want) {
					t.Errorf("tools %v lack %s (someone can answer cards here)", names, want)
				}
			}
			for _, absent := range []string{"open_file", "get_selection", "get_diagnostics", "list_open_documents"} {
				if slices.Contains(names, absent) {
					t.Errorf("tools list %s, which no editor offers here", absent)
				}
			}
			file := filepath.Join(w.ws, "greeting.txt")
			edit := map[string]any{"path": "greeting.txt", "old_text": "hello", "new_text": "HELLO"}
			text, isErr := call(t, cs, "propose_edit", edit)
			if !isErr || !strings.Contains(text, "denied") {
				t.Errorf("declined propose_edit = %q (error %v), want denied", text, isErr)
			}
			if b, _ := os.ReadFile(file); string(b) != "say hello\n" {
				t.Errorf("after the declined edit the file is %q", b)
			}
			shown := ap.shown()
			if len(shown) != 1 || shown[0].Kind != "write" || !strings.HasPrefix(shown[0].Title, "claude-code (MCP, HTTP") ||
				!strings.HasPrefix(shown[0].RequestedBy, "claude-code (MCP, HTTP") || !strings.Contains(shown[0].Detail, "+say HELLO") {
				t.Fatalf("cards = %+v, want one write card naming claude-code and its HTTP connection, with the diff", shown)
			}
			ap.set("allow_once")
			if text, isErr := call(t, cs, "propose_edit", edit); isErr {
				t.Errorf("accepted propose_edit = %q", text)
			}
			if b, _ := os.ReadFile(file); string(b) != "say HELLO\n" {
				t.Errorf("after the accepted edit the file is %q", b)
			}
			if text, isErr := call(t, cs, "propose_edit", map[string]any{"path": "greeting.txt"}); !isErr || !strings.Contains(text, "either old_text and new_text") {
				t.Errorf("propose_edit with neither = %q, want the error saying what it expects", text)
			}
		})
	}
}
