package acp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestEditorRemoteServer: an ACP editor (the real SDK client) passes the
// real server-everything over Streamable HTTP in session/new (type http,
// with a header); agentls announces http and sse in mcpCapabilities, puts
// the server's launch card (its URL and header name, never the value)
// before the first turn, connects once allowed, and the model gets the
// real echo result. Rejected, it never connects and its tools are not
// offered.
func TestEditorRemoteServer(t *testing.T) {
	remote := testenv.EverythingHTTP(t, "streamableHttp")
	for _, c := range []struct {
		answers   []string
		connected bool
	}{{[]string{"allow_once", "allow_once"}, true}, {[]string{"reject_once"}, false}} {
		t.Run(c.answers[0], func(t *testing.T) {
			w := newWorld(t, "")
			if c.connected {
				w.model.Script(
					modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "remote__echo", Input: `{"message":"hello from the editor's server"}`}}},
					modeltest.Turn{Text: "it echoed"},
				)
			} else {
				w.model.Script(modeltest.Turn{Text: "no tools"})
			}
			servers, _ := json.Marshal([]mcpServer{{Type: "http", Name: "remote", URL: remote.URL,
				Headers: []httpHeader{{"X-Agentls-Team", "team-secret-value"}}}})
			out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root, MCPServers: servers},
				{Op: "prompt", Text: "echo something", Answers: c.answers}}})
			var init initializeResponse
			json.Unmarshal(out.Steps[0].Result, &init)
			if !init.AgentCapabilities.MCPCapabilities.HTTP || !init.AgentCapabilities.MCPCapabilities.SSE {
				t.Errorf("mcpCapabilities = %+v, want http and sse", init.AgentCapabilities.MCPCapabilities)
			}
			if out.Steps[1].Error != nil {
				t.Fatalf("session/new with an http server: %+v", out.Steps[1].Error)
			}
			if len(out.Permissions) != len(c.answers) {
				t.Fatalf("want %d permissions (launch, then the call), got %d", len(c.answers), len(out.Permissions))
			}
			card := out.Permissions[0].ToolCall.contents()
			if len(card) == 0 || card[0].Content == nil || !strings.Contains(card[0].Content.Text, remote.URL) ||
				!strings.Contains(card[0].Content.Text, "X-Agentls-Team") || strings.Contains(card[0].Content.Text, "team-secret-value") {
				t.Errorf("the launch card shows the URL and header names, never a value: %+v", card)
			}
			reqs := w.model.Requests()
			if c.connected {
				if len(reqs) != 2 {
					t.Fatalf("the model got %d requests, want 2", len(reqs))
				}
				res := reqs[1].ToolResults()
				if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Content, "hello from the editor's server") {
					t.Errorf("the model got %+v, want the real echo result", res)
				}
				return
			}
			if len(reqs) != 1 || slices.Contains(reqs[0].ToolNames(), "remote__echo") {
				t.Errorf("a rejected server's tools were offered: %d requests, tools %v", len(reqs), reqs[0].ToolNames())
			}
		})
	}
}

// TestEditorSSEServer: a server the editor passes as type sse (the older
// HTTP+SSE transport; the real server-everything in sse mode) is reached
// once allowed: agentls tries Streamable HTTP, falls back to HTTP+SSE on
// the server's 4xx, and the model gets the real echo result.
func TestEditorSSEServer(t *testing.T) {
	remote := testenv.EverythingHTTP(t, "sse")
	w := newWorld(t, "")
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "old__echo", Input: `{"message":"hello over sse"}`}}},
		modeltest.Turn{Text: "it echoed"},
	)
	servers, _ := json.Marshal([]mcpServer{{Type: "sse", Name: "old", URL: remote.URL, Headers: []httpHeader{}}})
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root, MCPServers: servers},
		{Op: "prompt", Text: "echo something", Answers: []string{"allow_once", "allow_once"}}}})
	if out.Steps[2].Error != nil {
		t.Fatalf("prompt: %+v", out.Steps[2].Error)
	}
	reqs := w.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	if res := reqs[1].ToolResults(); len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Content, "hello over sse") {
		t.Errorf("the model got %+v, want the real echo result over SSE", res)
	}
}
