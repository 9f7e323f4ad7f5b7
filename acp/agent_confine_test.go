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

// TestEditorServerIsConfined: a stdio MCP server an ACP editor passes in
// session/new can be authored by the repository (Zed reads project
// settings from .zed/settings.json), so it runs confined like a
// repository's own server. The real SDK client passes the fault server;
// allowed, it tries to write a file outside its folder and to open a TCP
// connection to a listener here: both get the kernel's EACCES, nothing is
// written, nothing is accepted, and the launch card said what it may
// touch before it was allowed.
func TestEditorServerIsConfined(t *testing.T) {
	if s := sandbox.Supported(); !s.Filesystem || !s.TCP && !s.SocketFilter {
		testenv.Missing(t, "Landlock with network limits ("+s.String()+")", "run on Linux 6.7 or later with Landlock enabled")
	}
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
	marker := "acp-editor-confined-" + filepath.Base(t.TempDir())
	w := newWorld(t, "")
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "proj__try_write", Input: `{}`}}},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "n1", Name: "proj__try_connect", Input: `{}`}}},
		modeltest.Turn{Text: "done"},
	)
	servers, _ := json.Marshal([]mcpServer{{Name: "proj", Command: bin,
		Args: []string{"-marker", marker, "-write", planted, "-connect", ln.Addr().String()}}})
	out := w.run(plan{Marker: marker, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root, MCPServers: servers},
		{Op: "prompt", Text: "try", Answers: []string{"allow_once", "allow_once", "allow_once"}}}})
	if len(out.Permissions) != 3 {
		t.Fatalf("want 3 permissions (the launch, then each call), got %d", len(out.Permissions))
	}
	card := out.Permissions[0].ToolCall.contents()
	if len(card) == 0 || card[0].Content == nil || !strings.Contains(card[0].Content.Text, "confined by the kernel") ||
		!strings.Contains(card[0].Content.Text, "network: none") {
		t.Errorf("the launch card says what the server may touch: %+v", card)
	}
	reqs := w.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	for i, what := range []string{"write outside its folder", "TCP connect"} {
		res := reqs[i+1].ToolResults() // the conversation so far: the last is this call's
		if len(res) != i+1 || !strings.Contains(res[i].Content, "permission denied") {
			t.Errorf("%s from the editor's server: %+v, want the kernel's permission error", what, res)
		}
	}
	if _, err := os.Stat(planted); !os.IsNotExist(err) {
		t.Errorf("the editor's server wrote %s (stat: %v)", planted, err)
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the listener accepted %d connections from the editor's server", n)
	}
	testenv.WaitNoProcesses(t, marker, 5*time.Second)
}
