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

// TestNodeClientEndToEnd drives the agentls binary with Microsoft's LSP
// client library from Node: one task whose model calls a real MCP server's
// tool (server-everything's echo, not allow-listed, so the call asks),
// approved through the request card, then 2, then 3.
func TestNodeClientEndToEnd(t *testing.T) {
	node := testenv.Tool(t, "node")
	modules := testenv.NodeModules(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	bin := testenv.Agentls(t)
	script, err := filepath.Abs(filepath.Join("testdata", "e2e_client.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("path %d", path), func(t *testing.T) {
			dir := t.TempDir()
			ws, state := filepath.Join(dir, "ws"), filepath.Join(dir, "state")
			marker := filepath.Join(dir, "everything-marker")
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			model := modeltest.New(t)
			model.Script(
				modeltest.Turn{Text: "Let me echo.", ToolCalls: []modeltest.ToolCall{{ID: "call_echo", Name: "everything__echo", Input: `{"message":"hello from e2e"}`}}},
				modeltest.Turn{Text: "echo said hello"},
			)
			config := filepath.Join(dir, "config.toml")
			cfg := fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"fake-model\"\ncontext_window = 200000\nbase_url = %q\napi_key_env = \"AGENTLS_TEST_KEY\"\n\n"+
				"[mcp.servers.everything]\ncommand = %q\nargs = [\"stdio\", %q]\n", model.URL()+"/v1", everything, marker)
			if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(node, script)
			cmd.Dir = ws
			cmd.Env = append(os.Environ(),
				"NODE_PATH="+modules,
				"AGENTLS_BIN="+bin,
				fmt.Sprintf("AGENTLS_PATH=%d", path),
				"WORKSPACE="+ws,
				"TOOL=everything__echo",
				"SERVER=everything",
				"ECHO=Echo: hello from e2e",
				"PROMPT=echo something\nplease",
				"FINAL_TEXT=echo said hello",
				"AGENTLS_CONFIG="+config,
				"XDG_STATE_HOME="+state,
				"AGENTLS_TEST_KEY=test",
			)
			out, err := cmd.CombinedOutput()
			t.Logf("node client:\n%s", out)
			if err != nil {
				t.Fatalf("the Node client failed: %v", err)
			}
			reqs := model.Requests()
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
