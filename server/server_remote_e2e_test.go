package server

import (
	"fmt"
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
	remote := testenv.EverythingHTTP(t, "streamableHttp")
	e := newEnv(t, fmt.Sprintf("[mcp.servers.everything]\nurl = %q\n", remote.URL))
	e.model.Script(
		modeltest.Turn{Text: "Let me echo.", ToolCalls: []modeltest.ToolCall{{ID: "call_echo", Name: "everything__echo", Input: `{"message":"hello over http"}`}}},
		modeltest.Turn{Text: "echo said hello"},
	)
	runNodeLSP(t, e, "e2e_client.js",
		"AGENTLS_PATH=1",
		"TOOL=everything__echo",
		"SERVER=everything",
		"ECHO=Echo: hello over http",
		"PROMPT=echo something\nplease",
		"FINAL_TEXT=echo said hello",
	)
	reqs := e.model.Requests()
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
