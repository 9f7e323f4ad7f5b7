package server

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// remoteCall is one run of e2e_client.js (approval through the client's
// request card) against `agentls serve` whose MCP server "everything" is
// the real server-everything over Streamable HTTP: the model, speaking
// format, calls tool with input; the tool_result event must contain echo.
type remoteCall struct {
	format, tool, input, echo string
	args                      string // what the approval card must show of input; "": echo less "Echo: "
	prompt, final             string // the task's prompt and the model's last text
}

// run runs it and returns the fake model's requests.
func (c remoteCall) run(t *testing.T) []modeltest.Request {
	t.Helper()
	remote := testenv.EverythingHTTP(t, "streamableHttp")
	e := newEnv(t, fmt.Sprintf("[mcp.servers.everything]\nurl = %q\n", remote.URL))
	cfg, err := os.ReadFile(e.config)
	if err != nil {
		t.Fatal(err)
	}
	// fake-model is no vision model agentls knows: say it takes images.
	cfg = bytes.Replace(cfg, []byte("[model]\n"), []byte("[model]\nimages = true\n"), 1)
	if c.format == "anthropic" {
		cfg = bytes.Replace(cfg, []byte(`provider = "openai"`), []byte(`provider = "anthropic"`), 1)
		cfg = bytes.Replace(cfg, []byte(e.model.URL()+"/v1"), []byte(e.model.URL()), 1)
	}
	if err := os.WriteFile(e.config, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	e.model.Script(
		modeltest.Turn{Text: "Let me call it.", ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: c.tool, Input: c.input}}},
		modeltest.Turn{Text: c.final},
	)
	env := []string{"AGENTLS_PATH=1", "TOOL=" + c.tool, "SERVER=everything", "ECHO=" + c.echo, "PROMPT=" + c.prompt, "FINAL_TEXT=" + c.final}
	if c.args != "" {
		env = append(env, "ARGS="+c.args)
	}
	runNodeLSP(t, e, "e2e_client.js", env...)
	reqs := e.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	if res := reqs[1].ToolResults(); len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Content, c.echo) {
		t.Errorf("second request carries tool results %+v, want the real result, with %q", res, c.echo)
	}
	if !remote.WaitOutput("Received session termination request", 10*time.Second) {
		t.Errorf("agentls serve ended without ending its Streamable HTTP session (no DELETE)")
	}
	return reqs
}

// TestNodeClientRemoteServer is TestNodeClientEndToEnd (approval through
// the client's request card) with the MCP server remote: `agentls serve`
// reaches the real server-everything over Streamable HTTP, and the model
// gets the real echo result.
func TestNodeClientRemoteServer(t *testing.T) {
	remoteCall{format: "openai", tool: "everything__echo", input: `{"message":"hello over http"}`, echo: "Echo: hello over http",
		prompt: "echo something\nplease", final: "echo said hello"}.run(t)
}

// TestNodeClientRemoteImage: the same path with get-tiny-image, on both
// model wires: the client's tool_result names the image, and the fake
// model's next request carries the server's PNG bytes as an image (inside
// the tool_result on Anthropic's wire, in the user message after the tool
// message on OpenAI's).
func TestNodeClientRemoteImage(t *testing.T) {
	want := testenv.EverythingTinyImage(t)
	for _, format := range []string{"anthropic", "openai"} {
		t.Run(format, func(t *testing.T) {
			reqs := remoteCall{format: format, tool: "everything__get-tiny-image", input: `{}`, echo: "[image: image/png, ", args: "{}",
				prompt: "show the tiny image\nplease", final: "it is the MCP logo"}.run(t)
			where := map[string]string{"anthropic": "tool_result", "openai": "user"}[format]
			imgs := reqs[1].Images()
			if len(imgs) != 1 || imgs[0].Where != where || imgs[0].ToolUseID != "call_1" || imgs[0].MIMEType != "image/png" || !bytes.Equal(imgs[0].Data, want) {
				t.Errorf("the model got images %+v; want the server's %d-byte PNG in the %s block of call_1", imgs, len(want), where)
			}
		})
	}
}
