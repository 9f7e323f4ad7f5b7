package neovim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/mcpserve"
	"github.com/agentls/agentls/mcpserve/mcpservetest"
)

// TestMCPServeDrivesTheEditor is issue 29 in a real Neovim: with [serve]
// mcp = true the agentls the plugin started serves this editor; the
// official MCP SDK's client connects over Streamable HTTP (the published
// endpoint and token) and over stdio (the real `agentls mcp serve`, which
// finds the session and passes it through), and each tool acts on the
// editor: the unsaved buffer, the selection and diagnostics its code
// action carried, a propose_edit declined (nothing changes) and one
// accepted (it lands in the buffer, not on disk), a run_command declined,
// open_file, the workspace folders, the built-in read tools, git_status,
// agentls's stored sessions and a transcript (each asking), each card
// naming the client. Without the token: 401.
func TestMCPServeDrivesTheEditor(t *testing.T) {
	for _, ed := range editors[:2] {
		t.Run(ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			w := newWorld(t, "openai", modeltest.Turn{Text: "Hello from an earlier conversation."})
			cfg, _ := os.ReadFile(w.configPath())
			if err := os.WriteFile(w.configPath(), append(cfg, "\n[serve]\nmcp = true\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			// A repository, for git_status; a stored conversation of
			// agentls's own, for agentls_sessions and agentls_transcript.
			if out, err := exec.Command(testenv.Tool(t, "git"), "-C", w.ws, "init", "-q").CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
			run := exec.Command(w.bin, "run", "say hello from before")
			run.Dir, run.Env = w.ws, w.env
			if out, err := run.CombinedOutput(); err != nil {
				t.Fatalf("agentls run: %v\n%s", err, out)
			}
			// Cards in call order: the HTTP propose_edit (declined), the stdio
			// propose_edit (accepted), the stdio run_command (declined), the
			// HTTP git_status, the stdio agentls_sessions and the HTTP
			// agentls_transcript (accepted).
			w.env = append(w.env, "AGENTLS_E2E_DIR="+w.dir, "AGENTLS_E2E_ANSWERS=reject_once,allow_once,reject_once,allow_once,allow_once,allow_once")
			done := w.startNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "mcp_serve.lua"))
			waitFile(t, filepath.Join(w.dir, "ready"), done)

			state := filepath.Join(w.dir, "state", "agentls")
			e, err := mcpserve.Find(state, w.ws)
			if err != nil {
				t.Fatalf("the editor session published no endpoint: %v", err)
			}
			tr := &http.Transport{}
			t.Cleanup(tr.CloseIdleConnections)
			if resp, err := (&http.Client{Transport: tr}).Post(e.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
				t.Errorf("a request without the token: %v", err)
			} else if resp.Body.Close(); resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("a request without the token: %s, want 401", resp.Status)
			}
			token, err := e.ReadToken()
			if err != nil {
				t.Fatal(err)
			}
			httpc := connectMCP(t, &sdk.StreamableClientTransport{Endpoint: e.URL, HTTPClient: &http.Client{Transport: mcpservetest.Bearer{Token: token, Next: tr}}}, "claude-code")
			// A 2025-11-25 client watching the document as a resource.
			updated := make(chan string, 16)
			listChanged := make(chan struct{}, 16)
			watcher := mcpservetest.Connect(t, &sdk.StreamableClientTransport{Endpoint: e.URL, HTTPClient: &http.Client{Transport: mcpservetest.Bearer{Token: token, Next: tr}}}, "watcher", "2025-11-25",
				&sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
					select {
					case updated <- r.Params.URI:
					default:
					}
				}, ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
					select {
					case listChanged <- struct{}{}:
					default:
					}
				}})
			uri := "file://" + w.file
			var listed []string
			for r, err := range watcher.Resources(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				listed = append(listed, r.URI)
			}
			if !slices.Contains(listed, uri) {
				t.Errorf("resources = %v, want the open document %s", listed, uri)
			}
			if rr, err := watcher.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri}); err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "say hello, unsaved\n" {
				t.Errorf("resources/read = %+v, %v; want the unsaved buffer", rr, err)
			}
			if err := watcher.Subscribe(context.Background(), &sdk.SubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}

			serve := exec.Command(w.bin, "mcp", "serve")
			serve.Dir, serve.Env = w.ws, w.env
			stdio := connectMCP(t, &sdk.CommandTransport{Command: serve}, "hermes-agent")

			names := mcpTools(t, httpc)
			for _, want := range []string{"list_open_documents", "read_document", "get_selection", "get_diagnostics", "propose_edit", "run_command", "git_status", "workspace_folders",
				"read_file", "list_directory", "find_files", "search_text", "agentls_sessions", "agentls_transcript"} {
				if !slices.Contains(names, want) {
					t.Errorf("tools %v lack %s", names, want)
				}
			}
			// The plugin answers window/showDocument (0.7.2 has none of its
			// own), so open_file is offered on both.
			if !slices.Contains(names, "open_file") {
				t.Errorf("open_file is not listed, but the plugin shows documents")
			}
			if s := mcpTools(t, stdio); !slices.Equal(s, names) {
				t.Errorf("stdio tools %v differ from the session's %v", s, names)
			}

			if text := mcpCall(t, httpc, "list_open_documents", nil, false); !strings.Contains(text, w.file) {
				t.Errorf("list_open_documents = %s, want %s", text, w.file)
			}
			if text := mcpCall(t, stdio, "read_document", map[string]any{"path": "greeting.txt"}, false); text != "say hello, unsaved\n" {
				t.Errorf("read_document = %q, want the unsaved buffer", text)
			}
			if text := mcpCall(t, httpc, "get_selection", nil, false); !strings.Contains(text, `"start":{"line":0,"character":4}`) || !strings.Contains(text, "say hello, unsaved") {
				t.Errorf("get_selection = %s, want the code action's range and its line", text)
			}
			if text := mcpCall(t, stdio, "get_diagnostics", nil, false); !strings.Contains(text, "greeting is too quiet") {
				t.Errorf("get_diagnostics = %s, want the diagnostic the code action carried", text)
			}

			edit := map[string]any{"path": "greeting.txt", "old_text": "unsaved", "new_text": "from an outside agent"}
			if text := mcpCall(t, httpc, "propose_edit", edit, true); !strings.Contains(text, "denied") {
				t.Errorf("declined propose_edit = %q", text)
			}
			if text := mcpCall(t, stdio, "read_document", map[string]any{"path": "greeting.txt"}, false); text != "say hello, unsaved\n" {
				t.Errorf("after the declined edit the buffer is %q", text)
			}
			mcpCall(t, stdio, "propose_edit", edit, false)
			// Neovim sends the edit's didChange up to 150 ms later.
			deadline := time.Now().Add(20 * time.Second)
			for text := ""; text != "say hello, from an outside agent\n"; {
				if time.Now().After(deadline) {
					t.Fatalf("after the accepted edit read_document still gives %q", text)
				}
				text = mcpCall(t, httpc, "read_document", map[string]any{"path": "greeting.txt"}, false)
			}
			select {
			case got := <-updated:
				if got != uri {
					t.Errorf("resources/updated for %s, want %s", got, uri)
				}
			case <-time.After(20 * time.Second):
				t.Errorf("no notifications/resources/updated after the edit landed in the buffer")
			}
			if text := mcpCall(t, stdio, "run_command", map[string]any{"command": "touch ran.txt"}, true); !strings.Contains(text, "denied") {
				t.Errorf("declined run_command = %q", text)
			}
			other := filepath.Join(w.ws, "other.txt")
			testenv.WriteFile(t, other, "another file\n")
			for len(listChanged) > 0 {
				<-listChanged
			}
			mcpCall(t, httpc, "open_file", map[string]any{"path": "other.txt"}, false)
			// The document open_file opened is a resource now.
			select {
			case <-listChanged:
				found := false
				for r, err := range watcher.Resources(context.Background(), nil) {
					if err != nil {
						t.Fatal(err)
					}
					found = found || r.URI == "file://"+other
				}
				if !found {
					t.Errorf("after notifications/resources/list_changed the resources lack %s", other)
				}
			case <-time.After(20 * time.Second):
				t.Errorf("no notifications/resources/list_changed after open_file opened another document")
			}
			if text := mcpCall(t, httpc, "open_file", map[string]any{"path": "../outside.txt"}, true); !strings.Contains(text, "not a file inside the workspace") {
				t.Errorf("open_file outside the workspace = %q", text)
			}

			// The rest of the tools, over both transports.
			if text := mcpCall(t, stdio, "workspace_folders", nil, false); strings.TrimSpace(text) != w.ws {
				t.Errorf("workspace_folders = %q, want %s", text, w.ws)
			}
			if text := mcpCall(t, httpc, "read_file", map[string]any{"path": "other.txt"}, false); !strings.Contains(text, "another file") {
				t.Errorf("read_file = %q", text)
			}
			if text := mcpCall(t, stdio, "list_directory", map[string]any{"path": "."}, false); !strings.Contains(text, "greeting.txt") || !strings.Contains(text, "other.txt") {
				t.Errorf("list_directory = %q, want greeting.txt and other.txt", text)
			}
			if text := mcpCall(t, httpc, "find_files", map[string]any{"pattern": "*.txt"}, false); !strings.Contains(text, "other.txt") {
				t.Errorf("find_files *.txt = %q", text)
			}
			if text := mcpCall(t, stdio, "search_text", map[string]any{"pattern": "another f"}, false); !strings.Contains(text, "other.txt:1:") {
				t.Errorf("search_text = %q, want other.txt:1:", text)
			}
			if text := mcpCall(t, httpc, "git_status", nil, false); !strings.Contains(text, "## ") || !strings.Contains(text, "?? other.txt") {
				t.Errorf("git_status = %q, want the branch line and the untracked file", text)
			}
			sessions := mcpCall(t, stdio, "agentls_sessions", nil, false)
			id, _, _ := strings.Cut(strings.SplitN(sessions, "\n", 2)[0], "\t")
			if id == "" || !strings.Contains(sessions, "say hello from before") {
				t.Fatalf("agentls_sessions = %q, want the conversation agentls run stored", sessions)
			}
			if text := mcpCall(t, httpc, "agentls_transcript", map[string]any{"sessionId": id}, false); !strings.Contains(text, "say hello from before") || !strings.Contains(text, "Hello from an earlier conversation.") {
				t.Errorf("agentls_transcript(%s) = %q, want the stored conversation", id, text)
			}

			if err := os.WriteFile(filepath.Join(w.dir, "done"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			res := <-done
			if got := strings.Join(strs(res["lines"]), "\n"); got != "say hello, from an outside agent" {
				t.Errorf("buffer at the end = %q, want the accepted edit", got)
			}
			if disk, _ := os.ReadFile(w.file); string(disk) != original {
				t.Errorf("disk = %q, want it untouched (the edit lands in the buffer)", disk)
			}
			if _, err := os.Stat(filepath.Join(w.ws, "ran.txt")); !os.IsNotExist(err) {
				t.Errorf("the declined command ran")
			}
			cards := strs(res["cards"])
			if len(cards) != 6 {
				t.Fatalf("Neovim showed %d cards, want 6: %q", len(cards), cards)
			}
			for i, who := range []string{"claude-code (MCP, HTTP", "hermes-agent (MCP, HTTP", "hermes-agent (MCP, HTTP", "claude-code (MCP, HTTP", "hermes-agent (MCP, HTTP", "claude-code (MCP, HTTP"} {
				if !strings.Contains(cards[i], who) {
					t.Errorf("card %d = %q, want it to name %s", i+1, cards[i], who)
				}
			}
			if !strings.Contains(cards[0], "greeting.txt") || !strings.Contains(cards[2], "touch ran.txt") || !strings.Contains(cards[3], "git status") ||
				!strings.Contains(cards[4], "sessions") || !strings.Contains(cards[5], "transcript") {
				t.Errorf("cards do not name what they gate: %q", cards)
			}
			if shown, _ := res["shown"].(string); shown != other {
				t.Errorf("the editor shows %q after open_file, want %s", shown, other)
			}
			if _, err := mcpserve.Find(state, w.ws); err == nil {
				t.Errorf("the endpoint is still published after the editor quit")
			}
		})
	}
}

// startNvim is runNvim in the background: the result arrives on the
// channel once Neovim has quit (or failed the test).
func (w *world) startNvim(t *testing.T, nvim string, args ...string) <-chan map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*nvimBound)
	full := append([]string{"--headless", "-i", "NONE", "-n"}, args...)
	cmd := exec.CommandContext(ctx, nvim, full...)
	cmd.Dir, cmd.Env = w.ws, w.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	testenv.OwnGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	out := make(chan map[string]any, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		defer cancel()
		err := cmd.Wait()
		var res map[string]any
		raw, _ := os.ReadFile(w.out)
		json.Unmarshal(raw, &res)
		if err != nil || res == nil || res["error"] != nil {
			res = map[string]any{"error": err, "script": res, "stdout": stdout.String(), "stderr": stderr.String(), "lsp": w.lspLog()}
		}
		out <- res
	}()
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(w.dir, "done"), nil, 0o644)
		<-finished
		testenv.WaitNoProcesses(t, w.dir, 10*time.Second)
	})
	return out
}

// waitFile waits for path, failing with Neovim's result if it quit first.
func waitFile(t *testing.T, path string, done <-chan map[string]any) {
	t.Helper()
	deadline := time.Now().Add(nvimBound)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case res := <-done:
			t.Fatalf("Neovim quit before %s: %v", filepath.Base(path), res)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("no %s after %s", path, nvimBound)
}

func connectMCP(t *testing.T, tr sdk.Transport, name string) *sdk.ClientSession {
	t.Helper()
	return mcpservetest.Connect(t, tr, name, "", nil)
}

func mcpTools(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	return mcpservetest.Tools(t, cs)
}

// mcpCall calls a tool, failing unless its isError is wantErr.
func mcpCall(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, wantErr bool) string {
	t.Helper()
	text, isErr := mcpservetest.Call(t, cs, name, args)
	if isErr != wantErr {
		t.Errorf("%s(%v) = %q, isError %v, want %v", name, args, text, isErr, wantErr)
	}
	return text
}
