package neovim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
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
	"github.com/agentls/agentls/wire"
)

// TestMCPServeDrivesTheEditor is issue 29 in a real Neovim: with [serve]
// mcp = true the agentls the plugin started serves this editor; the
// official MCP SDK's client connects over Streamable HTTP (the published
// endpoint and token) and over stdio (the real `agentls mcp serve`, which
// finds the session and passes it through), and each tool acts on the
// editor: the unsaved buffer, the selection and diagnostics its code
// action carried, a propose_edit declined (nothing changes) and one
// accepted (it lands in the buffer, not on disk), a run_command declined,
// open_file, the editor extras the plugin announces (the tabs: a clean
// buffer closed, a modified one refused and kept; terminals created,
// typed into when the card is accepted and not when declined, read; every
// diagnostic Neovim holds, a linter's of the test's own namespace), the
// workspace folders, the built-in read tools, git_status, agentls's stored
// sessions and a transcript (each asking), each card naming the client,
// and exactly the tools Neovim can offer (no tasks: it has no task
// runner). Without the token: 401.
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
			// HTTP run_command (accepted), the stdio send_to_terminal
			// (accepted), the HTTP send_to_terminal (declined), then,
			// accepted, git_status (HTTP, stdio), agentls_sessions (stdio,
			// HTTP) and agentls_transcript (HTTP, stdio).
			w.env = append(w.env, "AGENTLS_E2E_DIR="+w.dir, "AGENTLS_E2E_ANSWERS=reject_once,allow_once,reject_once,allow_once,allow_once,reject_once,allow_once,allow_once,allow_once,allow_once,allow_once,allow_once")
			// A clean file the script opens in a second tabpage.
			clean := filepath.Join(w.ws, "clean.txt")
			testenv.WriteFile(t, clean, "naïve café\n")
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

			// Exactly what Neovim offers: open_file (the plugin answers
			// window/showDocument, 0.7.2 included), the tabs, the
			// terminals, and no list_tasks or run_task (no task runner).
			want := []string{"agentls_sessions", "agentls_transcript", "close_tab", "create_terminal", "find_files", "get_diagnostics", "get_selection", "git_status",
				"list_directory", "list_open_documents", "list_tabs", "list_terminals", "open_file", "propose_edit", "read_document", "read_file", "read_terminal",
				"run_command", "search_text", "send_to_terminal", "workspace_folders"}
			names := mcpTools(t, httpc)
			if got := slices.Sorted(slices.Values(names)); !slices.Equal(got, want) {
				t.Errorf("HTTP tools = %v, want exactly %v", got, want)
			}
			if s := mcpTools(t, stdio); !slices.Equal(s, names) {
				t.Errorf("stdio tools %v differ from the session's %v", s, names)
			}
			if text := mcpCall(t, stdio, "list_tasks", nil, true); !strings.Contains(text, "does not offer list_tasks") {
				t.Errorf("list_tasks in Neovim = %q, want it saying the editor does not offer it", text)
			}

			// Each tool over both transports.
			both := []*sdk.ClientSession{httpc, stdio}
			for _, cs := range both {
				if text := mcpCall(t, cs, "list_open_documents", nil, false); !strings.Contains(text, w.file) {
					t.Errorf("list_open_documents = %s, want %s", text, w.file)
				}
				if text := mcpCall(t, cs, "read_document", map[string]any{"path": "greeting.txt"}, false); text != "say hello, unsaved\n" {
					t.Errorf("read_document = %q, want the unsaved buffer", text)
				}
				if text := mcpCall(t, cs, "get_selection", nil, false); !strings.Contains(text, `"start":{"line":0,"character":4}`) || !strings.Contains(text, "say hello, unsaved") {
					t.Errorf("get_selection = %s, want the code action's range and its line", text)
				}
			}
			// Neovim answers agent/editor/diagnostics: every diagnostic it
			// holds (here a linter's, not agentls's), not only those a code
			// action carried; characters in UTF-16 where vim.diagnostic
			// counts bytes.
			wantDiags := map[string]string{
				w.file: `[{"code":"L42","message":"hello is lowercase","range":{"end":{"character":9,"line":0},"start":{"character":4,"line":0}},"severity":2,"source":"e2e-linter"}]`,
				clean:  `[{"message":"cafe needs its accent","range":{"end":{"character":10,"line":0},"start":{"character":6,"line":0}},"severity":4,"source":"e2e-linter"}]`,
			}
			for _, cs := range []*sdk.ClientSession{stdio, httpc} {
				text := mcpCall(t, cs, "get_diagnostics", nil, false)
				if got := diagnosticsByPath(t, text); !maps.Equal(got, wantDiags) {
					t.Errorf("get_diagnostics = %s, want Neovim's own %v", text, wantDiags)
				}
				if strings.Contains(text, "greeting is too quiet") {
					t.Errorf("get_diagnostics = %s, want what Neovim holds, not what the code action carried", text)
				}
			}
			text := mcpCall(t, httpc, "get_diagnostics", map[string]any{"path": "clean.txt"}, false)
			if got := diagnosticsByPath(t, text); !maps.Equal(got, map[string]string{clean: wantDiags[clean]}) {
				t.Errorf("get_diagnostics of clean.txt = %s, want its one diagnostic", text)
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
			mcpCall(t, httpc, "run_command", map[string]any{"command": "touch ran-over-http.txt"}, false)
			if _, err := os.Stat(filepath.Join(w.ws, "ran-over-http.txt")); err != nil {
				t.Errorf("the accepted run_command did not run: %v", err)
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
			for _, cs := range both {
				if text := mcpCall(t, cs, "open_file", map[string]any{"path": "../outside.txt"}, true); !strings.Contains(text, "not a file inside the workspace") {
					t.Errorf("open_file outside the workspace = %q", text)
				}
			}
			// Over stdio: the file already shown, a word of it selected.
			mcpCall(t, stdio, "open_file", map[string]any{"path": "other.txt", "range": map[string]any{"start": map[string]any{"line": 0, "character": 8}, "end": map[string]any{"line": 0, "character": 12}}}, false)

			// The tabs: each tabpage's buffers (group = its number), then the
			// buffers no window shows (group 0): the modified greeting.txt
			// is hidden since open_file showed other.txt in its window.
			wantTabs := []wire.EditorTab{
				{Path: other, Label: "other.txt", Active: true, Group: 1},
				{Path: clean, Label: "clean.txt", Active: true, Group: 2},
				{Path: w.file, Label: "greeting.txt", Dirty: true, Group: 0},
			}
			for _, cs := range []*sdk.ClientSession{httpc, stdio} {
				if got := editorTabs(t, mcpCall(t, cs, "list_tabs", nil, false)); !slices.Equal(got, wantTabs) {
					t.Errorf("list_tabs = %+v, want %+v", got, wantTabs)
				}
			}
			if text := mcpCall(t, stdio, "close_tab", map[string]any{"path": "greeting.txt"}, true); !strings.Contains(text, "unsaved changes") {
				t.Errorf("close_tab of the modified buffer = %q, want it refused for its unsaved changes", text)
			}
			if text := mcpCall(t, httpc, "close_tab", map[string]any{"path": "clean.txt"}, false); !strings.Contains(text, "closed the tab of "+clean) {
				t.Errorf("close_tab of the clean buffer = %q", text)
			}
			// The second tabpage stays, showing its window's alternate buffer.
			after := []wire.EditorTab{wantTabs[0], {Path: w.file, Label: "greeting.txt", Active: true, Dirty: true, Group: 2}}
			if got := editorTabs(t, mcpCall(t, stdio, "list_tabs", nil, false)); !slices.Equal(got, after) {
				t.Errorf("list_tabs after close_tab = %+v, want %+v: clean.txt closed, its tabpage showing the modified greeting.txt", got, after)
			}

			// The terminals: two made by agentls, one typed into (the card
			// accepted: the command runs), one not (declined: nothing typed).
			if text := mcpCall(t, httpc, "list_terminals", nil, false); text != "[]" {
				t.Errorf("list_terminals before any = %q, want [] (the user's own are never listed)", text)
			}
			build := terminalID(t, mcpCall(t, httpc, "create_terminal", map[string]any{"name": "build"}, false))
			spare := terminalID(t, mcpCall(t, stdio, "create_terminal", map[string]any{"name": "spare", "cwd": "."}, false))
			for _, cs := range []*sdk.ClientSession{stdio, httpc} {
				var terms []wire.EditorTerminal
				text := mcpCall(t, cs, "list_terminals", nil, false)
				if err := json.Unmarshal([]byte(text), &terms); err != nil || !slices.Equal(terms, []wire.EditorTerminal{{ID: build, Name: "build"}, {ID: spare, Name: "spare"}}) {
					t.Errorf("list_terminals = %s, want build (%s) and spare (%s)", text, build, spare)
				}
			}
			// The output, not the echo of the typed line, says it ran: the
			// typed line holds no "agentls-42" ($((6*7)) is the shell's to
			// work out). The output need not start a line: a shell that
			// starts late prints its prompt after the terminal echoed the
			// typed line, and the output follows that prompt.
			if text := mcpCall(t, stdio, "send_to_terminal", map[string]any{"id": build, "text": "echo agentls-$((6*7))"}, false); !strings.Contains(text, "typed into the terminal "+build) {
				t.Errorf("accepted send_to_terminal = %q", text)
			}
			waitTerminal(t, httpc, build, "agentls-42")
			// The spare terminal's shell is up (it shows its prompt) before
			// the declined call, so nothing typed would show.
			waitTerminal(t, stdio, spare, "")
			if text := mcpCall(t, httpc, "send_to_terminal", map[string]any{"id": spare, "text": "echo declined > declined.txt"}, true); !strings.Contains(text, "denied") {
				t.Errorf("declined send_to_terminal = %q", text)
			}
			if text := mcpCall(t, stdio, "read_terminal", map[string]any{"id": spare}, false); strings.Contains(text, "declined") {
				t.Errorf("after the declined send_to_terminal the terminal shows %q", text)
			}
			full := mcpCall(t, stdio, "read_terminal", map[string]any{"id": build}, false)
			if short := mcpCall(t, httpc, "read_terminal", map[string]any{"id": build, "max_bytes": 5}, false); short == "" || len(short) > 5 || !strings.HasSuffix(full, short) {
				t.Errorf("read_terminal with max_bytes 5 = %q, want the last 5 bytes (at most) of %q", short, full)
			}
			if text := mcpCall(t, httpc, "read_terminal", map[string]any{"id": "no-such"}, true); !strings.Contains(text, `no terminal of agentls has the id "no-such"`) {
				t.Errorf("read_terminal of an unknown id = %q", text)
			}

			// The rest of the tools, over both transports.
			for _, cs := range both {
				if text := mcpCall(t, cs, "workspace_folders", nil, false); strings.TrimSpace(text) != w.ws {
					t.Errorf("workspace_folders = %q, want %s", text, w.ws)
				}
				if text := mcpCall(t, cs, "read_file", map[string]any{"path": "other.txt"}, false); !strings.Contains(text, "another file") {
					t.Errorf("read_file = %q", text)
				}
				if text := mcpCall(t, cs, "list_directory", map[string]any{"path": "."}, false); !strings.Contains(text, "greeting.txt") || !strings.Contains(text, "other.txt") {
					t.Errorf("list_directory = %q, want greeting.txt and other.txt", text)
				}
				if text := mcpCall(t, cs, "find_files", map[string]any{"pattern": "*.txt"}, false); !strings.Contains(text, "other.txt") {
					t.Errorf("find_files *.txt = %q", text)
				}
				if text := mcpCall(t, cs, "search_text", map[string]any{"pattern": "another f"}, false); !strings.Contains(text, "other.txt:1:") {
					t.Errorf("search_text = %q, want other.txt:1:", text)
				}
			}
			for _, cs := range both {
				if text := mcpCall(t, cs, "git_status", nil, false); !strings.Contains(text, "## ") || !strings.Contains(text, "?? other.txt") {
					t.Errorf("git_status = %q, want the branch line and the untracked file", text)
				}
			}
			var id string
			for _, cs := range []*sdk.ClientSession{stdio, httpc} {
				sessions := mcpCall(t, cs, "agentls_sessions", nil, false)
				for _, line := range strings.Split(sessions, "\n") {
					if strings.Contains(line, "say hello from before") {
						id, _, _ = strings.Cut(line, "\t")
					}
				}
				if id == "" {
					t.Fatalf("agentls_sessions = %q, want the conversation agentls run stored", sessions)
				}
			}
			for _, cs := range both {
				if text := mcpCall(t, cs, "agentls_transcript", map[string]any{"sessionId": id}, false); !strings.Contains(text, "say hello from before") || !strings.Contains(text, "Hello from an earlier conversation.") {
					t.Errorf("agentls_transcript(%s) = %q, want the stored conversation", id, text)
				}
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
			if _, err := os.Stat(filepath.Join(w.ws, "declined.txt")); !os.IsNotExist(err) {
				t.Errorf("the declined send_to_terminal was typed")
			}
			if res["clean_listed"] != false || res["tabpages"] != 2.0 {
				t.Errorf("after close_tab clean.txt listed = %v and %v tabpages, want it deleted and the layout (2 tabpages) kept", res["clean_listed"], res["tabpages"])
			}
			if res["terminal_windows"] != 0.0 {
				t.Errorf("%v windows show a terminal, want none: agentls's terminals are buffers no window shows", res["terminal_windows"])
			}
			cards := strs(res["cards"])
			const claude, hermes = "claude-code (MCP, HTTP", "hermes-agent (MCP, HTTP" // stdio passes hermes-agent through to the session's HTTP
			wantCards := []struct{ who, what string }{
				{claude, "greeting.txt"}, {hermes, "greeting.txt"}, {hermes, "touch ran.txt"}, {claude, "touch ran-over-http.txt"},
				{hermes, "echo agentls-$((6*7))"}, {claude, "echo declined > declined.txt"},
				{claude, "git status"}, {hermes, "git status"}, {hermes, "sessions"}, {claude, "sessions"}, {claude, "transcript"}, {hermes, "transcript"},
			}
			if len(cards) != len(wantCards) {
				t.Fatalf("Neovim showed %d cards, want %d: %q", len(cards), len(wantCards), cards)
			}
			for i, c := range wantCards {
				if !strings.Contains(cards[i], c.who) || !strings.Contains(cards[i], c.what) {
					t.Errorf("card %d = %q, want it to name %s and what it gates (%s)", i+1, cards[i], c.who, c.what)
				}
			}
			// A terminal's card offers no "always allow".
			options := strs(res["options"])
			for _, i := range []int{4, 5} {
				if i >= len(options) || options[i] != "allow_once,reject_once" {
					t.Errorf("send_to_terminal card %d offers %v, want only allow_once,reject_once", i+1, options)
				}
			}
			if shown, _ := res["shown"].(string); shown != other {
				t.Errorf("the editor shows %q after open_file, want %s", shown, other)
			}
			if cursor := fmt.Sprint(res["cursor"]); cursor != "[1 8]" {
				t.Errorf("the cursor is at %s after open_file of a range, want [1 8] (its start)", cursor)
			}
			// Neovim waits for its language servers to exit only so long: the
			// session may end just after it. Once it has, nothing of its
			// endpoint is left.
			for deadline := time.Now().Add(30 * time.Second); testenv.ProcessAlive(e.PID) && time.Now().Before(deadline); {
				time.Sleep(50 * time.Millisecond)
			}
			if testenv.ProcessAlive(e.PID) {
				t.Errorf("the editor session (pid %d) still runs after the editor quit", e.PID)
			}
			if left, _ := filepath.Glob(filepath.Join(mcpserve.Dir(state), "*")); len(left) > 0 {
				t.Errorf("the endpoint is still published after the editor session ended: %v", left)
			}
		})
	}
}

// diagnosticsByPath decodes get_diagnostics's JSON into each file's
// diagnostics, re-encoded with sorted keys.
func diagnosticsByPath(t *testing.T, text string) map[string]string {
	t.Helper()
	var files []struct {
		Path        string           `json:"path"`
		Diagnostics []map[string]any `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(text), &files); err != nil {
		t.Errorf("get_diagnostics is not JSON: %v: %s", err, text)
		return nil
	}
	out := map[string]string{}
	for _, f := range files {
		b, _ := json.Marshal(f.Diagnostics)
		out[f.Path] = string(b)
	}
	return out
}

func editorTabs(t *testing.T, text string) []wire.EditorTab {
	t.Helper()
	var tabs []wire.EditorTab
	if err := json.Unmarshal([]byte(text), &tabs); err != nil {
		t.Errorf("list_tabs is not JSON: %v: %s", err, text)
	}
	return tabs
}

func terminalID(t *testing.T, text string) string {
	t.Helper()
	var r wire.EditorTerminalID
	if err := json.Unmarshal([]byte(text), &r); err != nil || r.ID == "" {
		t.Fatalf("create_terminal = %q, want {\"id\"}", text)
	}
	return r.ID
}

// waitTerminal reads a terminal until its output holds want (any output
// when want is ""): the shell writes when it is ready.
func waitTerminal(t *testing.T, cs *sdk.ClientSession, id, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	text := ""
	for time.Now().Before(deadline) {
		text = mcpCall(t, cs, "read_terminal", map[string]any{"id": id}, false)
		if (want == "" && strings.TrimSpace(text) != "") || (want != "" && strings.Contains(text, want)) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("terminal %s shows %q, want %q in it", id, text, want)
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
