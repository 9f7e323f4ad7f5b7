package neovim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestMcp runs the plugin with a real MCP server: :AgentMcp shows its state,
// literal command, tools and the policy of each, and a call to one of its
// tools asks through vim.ui.select showing `server · tool` and the arguments.
func TestMcp(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label+": AgentMcp lists state, command, tools, policy; an MCP call asks with server · tool", func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			real := testenv.NodeBin(t, "mcp-server-everything")
			w := newWorld(t, "openai",
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_echo", Name: "everything__echo", Input: `{"message":"hi from nvim"}`}}},
				modeltest.Turn{Text: "The server echoed."},
			)
			// Through a link in the test's folder, so the server's command
			// line carries the marker that proves it did not outlive the test.
			everything := filepath.Join(w.dir, "bin", "mcp-server-everything")
			if err := os.Symlink(real, everything); err != nil {
				t.Fatal(err)
			}
			config := w.configPath()
			f, err := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			// server-everything offers its elicitation tools too to a client
			// that announces elicitation: the budget keeps every tool offered
			// in the fake model's small default window (no tool search).
			_, err = f.WriteString("\n[mcp]\ntool_budget_tokens = 20000\n\n[mcp.servers.everything]\ncommand = \"" + everything + "\"\nconnect_timeout = \"60s\"\n\n" +
				"[mcp.policy]\n\"everything__get-sum\" = \"allow\"\n\"everything__get-env\" = \"deny\"\n")
			f.Close()
			if err != nil {
				t.Fatal(err)
			}

			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "mcp.lua"))

			if res["state"] != "connected" {
				t.Fatalf("server state %v, want connected", res["state"])
			}
			float := strings.Join(strs(res["mcp"]), "\n")
			for _, want := range []string{
				"everything  [connected]  (user)",
				"$ " + everything,
				"everything__echo",
				"everything__get-sum  ",
			} {
				if !strings.Contains(float, want) {
					t.Errorf(":AgentMcp float lacks %q:\n%s", want, float)
				}
			}
			policy := map[string]string{}
			for _, l := range strs(res["mcp"]) {
				if f := strings.Fields(l); len(f) >= 2 && strings.HasPrefix(f[0], "everything__") {
					policy[f[0]] = f[1]
				}
			}
			for tool, want := range map[string]string{"everything__get-sum": "allow", "everything__get-env": "deny", "everything__echo": "ask"} {
				if policy[tool] != want {
					t.Errorf(":AgentMcp shows %s with policy %q, want %q", tool, policy[tool], want)
				}
			}

			approvals, _ := res["approvals"].([]any)
			if len(approvals) != 1 {
				t.Fatalf("vim.ui.select asked %d times, want once (the MCP call): %v", len(approvals), approvals)
			}
			prompt, _ := approvals[0].(map[string]any)["prompt"].(string)
			if !strings.Contains(prompt, "everything · echo") || !strings.Contains(prompt, "hi from nvim") {
				t.Errorf("approval card = %q, want `everything · echo` and the arguments", prompt)
			}
			result, _ := res["result"].(map[string]any)
			if result["stopReason"] != "end_turn" {
				t.Errorf("agent/run result = %v, want stopReason end_turn", result)
			}
			reqs := w.model.ModelRequests("")
			if len(reqs) != 2 {
				t.Fatalf("model got %d requests, want 2", len(reqs))
			}
			if tr := reqs[1].ToolResults(); len(tr) != 1 || tr[0].IsError || !strings.Contains(tr[0].Content, "hi from nvim") {
				t.Errorf("tool result = %+v, want the echo of the message", tr)
			}
		})
	}
}
