package acp

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"
)

// needConfinement skips (locally) or fails (CI) without Landlock and a
// network limit.
func needConfinement(t *testing.T) {
	t.Helper()
	if s := sandbox.Supported(); !s.Filesystem || !s.TCP && !s.SocketFilter {
		testenv.Missing(t, "Landlock with network limits ("+s.String()+")", "run on Linux 6.7 or later with Landlock enabled")
	}
}

// TestEditorServerLaunchChoices: the launch card of a stdio server an ACP
// editor passes (its config cannot say how to confine it) offers, through
// session/request_permission, allow confined (allow_once), allow with
// network and allow unconfined, and says what each lets it touch. The real
// SDK client picks allow_network: the fault server's TCP connect reaches a
// listener here while a write outside its folder is still refused. A
// second session with the same server asks nothing (the choice is
// remembered with the approval) and still has the network.
func TestEditorServerLaunchChoices(t *testing.T) {
	needConfinement(t)
	bin := testenv.GoBinary(t, "./internal/faultserver")
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	planted := filepath.Join(outside, "planted-by-editor-server")
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	marker := "acp-editor-choice-" + filepath.Base(t.TempDir())
	w := newWorld(t, "")
	servers, _ := json.Marshal([]mcpServer{{Name: "proj", Command: bin,
		Args: []string{"-marker", marker, "-write", planted, "-connect", ln.Addr().String()}}})
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "n1", Name: "proj__try_connect", Input: `{}`}}},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "proj__try_write", Input: `{}`}}},
		modeltest.Turn{Text: "done"},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "n2", Name: "proj__try_connect", Input: `{}`}}},
		modeltest.Turn{Text: "done again"},
	)
	out := w.run(plan{Marker: marker, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root, MCPServers: servers},
		{Op: "prompt", Text: "try", Answers: []string{"allow_network", "allow_once", "allow_once"}}}})
	if len(out.Permissions) != 3 {
		t.Fatalf("want 3 permissions (the launch, then each call), got %d", len(out.Permissions))
	}
	var ids []string
	for _, o := range out.Permissions[0].Options {
		ids = append(ids, o.OptionID+"/"+o.Kind)
	}
	if got := strings.Join(ids, " "); got != "allow_once/allow_once allow_network/allow_once allow_unconfined/allow_once reject_once/reject_once" {
		t.Errorf("the launch card's options are %s", got)
	}
	card := out.Permissions[0].ToolCall.contents()
	if len(card) == 0 || card[0].Content == nil {
		t.Fatalf("the launch card has no text: %+v", card)
	}
	for _, want := range []string{"sandbox: confined by the kernel", "network: none", "choices:", "allow, confined: as the sandbox line says",
		"allow with network: confined by the kernel", "network: any", `allow unconfined: not confined (sandbox = "none")`} {
		if !strings.Contains(card[0].Content.Text, want) {
			t.Errorf("the launch card lacks %q:\n%s", want, card[0].Content.Text)
		}
	}
	reqs := w.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	if res := reqs[1].ToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, "connected to") {
		t.Errorf("connect with the network chosen: %+v", res)
	}
	if res := reqs[2].ToolResults(); len(res) != 2 || !strings.Contains(res[1].Content, "permission denied") {
		t.Errorf("write outside its folder with the network chosen: %+v, want the kernel's permission error", res)
	}
	if _, err := os.Stat(planted); !os.IsNotExist(err) {
		t.Errorf("the editor's server wrote %s (stat: %v)", planted, err)
	}
	testenv.WaitNoProcesses(t, marker, 5*time.Second)

	out = w.run(plan{Marker: marker, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root, MCPServers: servers},
		{Op: "prompt", Text: "again", Answers: []string{"allow_once"}}}})
	if len(out.Permissions) != 1 || strings.HasPrefix(out.Permissions[0].ToolCall.ToolCallID, "launch-") {
		t.Fatalf("the second session asked %d times (%+v); want only the call, the launch choice remembered", len(out.Permissions), out.Permissions)
	}
	reqs = w.model.Requests()
	if res := reqs[len(reqs)-1].ToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, "connected to") {
		t.Errorf("the remembered choice's connect: %+v", res)
	}
	if n := accepted.Load(); n != 2 {
		t.Errorf("the listener accepted %d connections, want 2", n)
	}
	testenv.WaitNoProcesses(t, marker, 5*time.Second)
}

// TestZedShapedSessionFetchesNpxServerWithNetwork: an ACP session shaped
// as Zed opens one for a context server of the user's editor settings
// (session/new mcpServers [{name, command: "npx", args: ["-y",
// "@modelcontextprotocol/server-everything"], env: []}]) through the real
// SDK client. Confined with no network (the default), npx could never
// fetch the package; the user picks "allow with network" on the launch
// card, npx fetches it from the npm registry into the server's own,
// empty folder (its HOME, so its npm cache starts empty), and the model's
// tool call reaches the real server.
func TestZedShapedSessionFetchesNpxServerWithNetwork(t *testing.T) {
	needConfinement(t)
	testenv.Tool(t, "npx")
	servers, _ := json.Marshal([]mcpServer{{Name: "everything", Command: "npx",
		Args: []string{"-y", "@modelcontextprotocol/server-everything"}, Env: []envVariable{}}})
	const timers = "[mcp]\nstartup_wait = \"170s\"\nconnect_timeout = \"170s\"\n"

	// Allowed confined (no network), npx cannot fetch: no tool reaches the
	// model (npm told not to retry, so it gives up at once).
	confined := newWorld(t, timers)
	confined.model.Script(modeltest.Turn{Text: "nothing to call"})
	noRetry, _ := json.Marshal([]mcpServer{{Name: "everything", Command: "npx",
		Args: []string{"-y", "@modelcontextprotocol/server-everything"}, Env: []envVariable{{Name: "npm_config_fetch_retries", Value: "0"}}}})
	confined.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: confined.root, MCPServers: noRetry},
		{Op: "prompt", Text: "echo", Answers: []string{"allow_once"}}}})
	if reqs := confined.model.Requests(); len(reqs) != 1 || strings.Contains(strings.Join(reqs[0].ToolNames(), " "), "everything__") {
		t.Fatalf("allowed confined without network, the npx server still offered tools: %d requests", len(reqs))
	}

	w := newWorld(t, timers)
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "everything__echo", Input: `{"message":"fetched and confined"}`}}},
		modeltest.Turn{Text: "done"},
	)
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root, MCPServers: servers},
		{Op: "prompt", Text: "echo", Answers: []string{"allow_network", "allow_once"}}}})
	if len(out.Permissions) != 2 {
		t.Fatalf("want 2 permissions (the launch, then the call), got %d", len(out.Permissions))
	}
	reqs := w.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2 (did the server start? %+v)", len(reqs), out.Updates)
	}
	if res := reqs[1].ToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, "Echo: fetched and confined") {
		t.Errorf("the echo call through the fetched server: %+v", res)
	}
	caches, _ := filepath.Glob(filepath.Join(w.state, "agentls", "mcp-servers", "everything-*", ".npm", "_cacache"))
	if len(caches) != 1 {
		t.Errorf("no npm cache in the server's own folder (%v): npx did not fetch there", caches)
	}
}
