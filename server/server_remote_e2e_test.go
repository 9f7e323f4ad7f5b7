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

// TestNodeClientRemoteServer is TestNodeClientEndToEnd (approval through
// the client's request card) with the MCP server remote: `agentls serve`
// reaches the real server-everything over Streamable HTTP, and the model
// gets the real echo result.
func TestNodeClientRemoteServer(t *testing.T) {
	node := testenv.Tool(t, "node")
	modules := testenv.NodeModules(t)
	remote := testenv.EverythingHTTP(t, "streamableHttp")
	bin := testenv.Agentls(t)
	script, err := filepath.Abs(filepath.Join("testdata", "e2e_client.js"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ws, state := filepath.Join(dir, "ws"), filepath.Join(dir, "state")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	model := modeltest.New(t)
	model.Script(
		modeltest.Turn{Text: "Let me echo.", ToolCalls: []modeltest.ToolCall{{ID: "call_echo", Name: "everything__echo", Input: `{"message":"hello over http"}`}}},
		modeltest.Turn{Text: "echo said hello"},
	)
	config := filepath.Join(dir, "config.toml")
	cfg := fmt.Sprintf("[model]\nprovider = \"openai\"\nname = \"fake-model\"\ncontext_window = 200000\nbase_url = %q\napi_key_env = \"AGENTLS_TEST_KEY\"\n\n"+
		"[mcp.servers.everything]\nurl = %q\n", model.URL()+"/v1", remote.URL)
	if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(),
		"NODE_PATH="+modules,
		"AGENTLS_BIN="+bin,
		"AGENTLS_PATH=1",
		"WORKSPACE="+ws,
		"TOOL=everything__echo",
		"SERVER=everything",
		"ECHO=Echo: hello over http",
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
	res := reqs[1].ToolResults()
	if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Content, "Echo: hello over http") {
		t.Errorf("second request carries tool results %+v, want the real echo result", res)
	}
	if !remote.WaitOutput("Received session termination request", 10*time.Second) {
		t.Errorf("agentls serve ended without ending its Streamable HTTP session (no DELETE)")
	}
}
