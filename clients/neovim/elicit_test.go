package neovim_test

import (
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestElicitForm runs the plugin with a real MCP server that asks a form
// (the fault server's ask tool): the card comes through vim.ui.select
// naming the server and quoting its words, Submit asks each field
// (lua/agentls/form.lua), and what was entered reaches the server.
func TestElicitForm(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			fault := testenv.GoBinary(t, "./internal/faultserver")
			question := `{"message":"Who are you?","schema":{"type":"object","required":["name"],"properties":{"name":{"type":"string","title":"Your name"},"color":{"type":"string","enum":["r","g"]}}}}`
			w := newWorld(t, "openai",
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_q", Name: "q__ask", Input: question}}},
				modeltest.Turn{Text: "Thanks."},
			)
			f, err := os.OpenFile(w.configPath(), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteString("\n[mcp.servers.q]\ncommand = \"" + fault + "\"\nargs = [\"-marker\", \"" + w.dir + "\"]\n\n[mcp.policy]\n\"q__ask\" = \"allow\"\n")
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "elicit.lua"))
			prompts := strs(res["prompts"])
			if len(prompts) != 3 || !strings.HasPrefix(prompts[0], "q asks: Who are you?\nMCP server q asks (its own words):\n  │ Who are you?") ||
				prompts[1] != "q asks: Your name (name): " || prompts[2] != "q asks: color" {
				t.Errorf("prompts %q", prompts)
			}
			if result, _ := res["result"].(map[string]any); result["stopReason"] != "end_turn" {
				t.Errorf("agent/run result = %v", result)
			}
			reqs := w.model.ModelRequests("")
			if len(reqs) != 2 {
				t.Fatalf("model got %d requests, want 2", len(reqs))
			}
			if tr := reqs[1].ToolResults(); len(tr) != 1 || tr[0].Content != `{"action":"accept","content":{"color":"g","name":"Ada"}}` {
				t.Errorf("tool result = %+v", tr)
			}
		})
	}
}
