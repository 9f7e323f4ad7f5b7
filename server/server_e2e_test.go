package server

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// runNodeLSP runs script (in testdata/) with node against `agentls serve`:
// Microsoft's LSP client library on NODE_PATH, the binary as AGENTLS_BIN, the
// workspace as WORKSPACE, agentls's config, state and key from e, and extra
// NAME=value pairs. It fails the test when the script does.
func runNodeLSP(t *testing.T, e *env, script string, extra ...string) {
	t.Helper()
	node := testenv.Tool(t, "node")
	modules := testenv.NodeModules(t)
	bin := testenv.Agentls(t)
	path, err := filepath.Abs(filepath.Join("testdata", script))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, path)
	cmd.Dir = e.root
	cmd.Env = append(append(os.Environ(),
		"NODE_PATH="+modules,
		"AGENTLS_BIN="+bin,
		"WORKSPACE="+e.root,
		"AGENTLS_CONFIG="+e.config,
		"XDG_STATE_HOME="+e.state,
		"AGENTLS_TEST_KEY=test",
	), extra...)
	out, err := cmd.CombinedOutput()
	t.Logf("node client %s:\n%s", script, out)
	if err != nil {
		t.Fatalf("the Node client %s failed: %v", script, err)
	}
}

// TestNodeClientEndToEnd drives the agentls binary with Microsoft's LSP
// client library from Node: one task whose model calls a real MCP server's
// tool (server-everything's echo, not allow-listed, so the call asks),
// approved through the request card, then 2, then 3.
func TestNodeClientEndToEnd(t *testing.T) {
	everything := testenv.NodeBin(t, "mcp-server-everything")
	bin := testenv.Agentls(t)
	for _, path := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("path %d", path), func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "everything-marker")
			e := newEnv(t, fmt.Sprintf("[mcp.servers.everything]\ncommand = %q\nargs = [\"stdio\", %q]\n", everything, marker))
			e.model.Script(
				modeltest.Turn{Text: "Let me echo.", ToolCalls: []modeltest.ToolCall{{ID: "call_echo", Name: "everything__echo", Input: `{"message":"hello from e2e"}`}}},
				modeltest.Turn{Text: "echo said hello"},
			)
			runNodeLSP(t, e, "e2e_client.js",
				fmt.Sprintf("AGENTLS_PATH=%d", path),
				"TOOL=everything__echo",
				"SERVER=everything",
				"ECHO=Echo: hello from e2e",
				"PROMPT=echo something\nplease",
				"FINAL_TEXT=echo said hello",
			)
			reqs := e.model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("the model got %d requests, want 2", len(reqs))
			}
			if !contains(reqs[0].ToolNames(), "everything__echo") {
				t.Errorf("first request offers %v, want everything__echo", reqs[0].ToolNames())
			}
			res := reqs[1].ToolResults()
			if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Content, "Echo: hello from e2e") {
				t.Errorf("second request carries tool results %+v, want the real echo result", res)
			}
			testenv.WaitNoProcesses(t, marker, 10*time.Second)
			testenv.WaitNoProcesses(t, bin+" serve", 10*time.Second)
		})
	}
}
