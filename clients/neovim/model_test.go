package neovim_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/model/providers"
	"github.com/agentls/agentls/internal/testenv"
)

// TestAgentModel, in real Neovim 0.7.2 and 0.10: a task with a tool call
// on the default profile (chat completions), :AgentModel's picker lists
// the profiles and picking "claude" switches the session; its next task
// goes to the Messages wire with the tool turn carried over (the fake
// refuses a history the API would); an unknown profile is refused.
func TestAgentModel(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			w := newWorld(t, "openai",
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_g1", Name: "read_file", Input: `{"path":"greeting.txt"}`}}},
				modeltest.Turn{Text: "It greets."},
				modeltest.Turn{Text: "Claude greets too."},
			)
			cfg, _ := os.ReadFile(w.configPath())
			cfg = append(cfg, fmt.Sprintf("\n[model.profiles.claude]\nprovider = \"anthropic\"\nname = \"fake-claude\"\nbase_url = %q\n", w.model.URL())...)
			if err := os.WriteFile(w.configPath(), cfg, 0o644); err != nil {
				t.Fatal(err)
			}
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "model.lua"))
			for _, k := range []string{"first", "second"} {
				if r, _ := res[k].(map[string]any); r["stopReason"] != "end_turn" {
					t.Errorf("%s task: %v", k, r)
				}
			}
			pickers, _ := res["pickers"].([]any)
			if len(pickers) != 1 {
				t.Fatalf("pickers %v; want the model's", pickers)
			}
			p := pickers[0].(map[string]any)
			items := strs(p["items"])
			if p["prompt"] != "agentls model (now default)" || len(items) != 2 || !strings.HasPrefix(items[0], "default") || items[1] != "claude  anthropic fake-claude" {
				t.Errorf("the picker %v", p)
			}
			if sw, _ := res["switched"].(map[string]any); sw == nil || sw["model"].(map[string]any)["profile"] != "claude" {
				t.Errorf("agent/setModel answered %v", res["switched"])
			}
			if r, _ := res["refusal"].(string); !strings.Contains(r, `unknown model profile "collector"`) {
				t.Errorf("an unknown profile: %q", r)
			}
			reqs := w.model.ModelRequests("")
			if len(reqs) != 3 || reqs[0].Format != providers.ChatCompletions || reqs[2].Format != providers.Messages {
				t.Fatalf("%d model requests; want two on chat completions, then one on the Messages wire", len(reqs))
			}
			if rs := reqs[2].ToolResults(); len(rs) != 1 || !strings.Contains(rs[0].Content, strings.TrimSpace(original)) {
				t.Errorf("the tool turn on the Messages wire: %+v", rs)
			}
		})
	}
}
