package neovim_test

import (
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestAgentPrompt runs the plugin with the real server-everything:
// :AgentPrompt lists its prompts in vim.ui.select, asks the chosen one's
// arguments with vim.ui.input (one per argument), and runs it after the
// prompts/get card; `:AgentPrompt everything.simple-prompt` runs one at
// once. The model gets each prompt's message as the user's turn.
func TestAgentPrompt(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			everything := testenv.NodeBin(t, "mcp-server-everything")
			w := newWorld(t, "openai", modeltest.Turn{Text: "weather said"}, modeltest.Turn{Text: "simple said"})
			f, err := os.OpenFile(w.configPath(), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteString("\n[mcp.servers.everything]\ncommand = \"" + everything + "\"\nargs = [\"stdio\"]\nconnect_timeout = \"60s\"\n")
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			w.env = append(w.env, "CITY=Lyon")
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "prompt.lua"))

			picked := strings.Join(strs(res["picked"]), "\n")
			for _, want := range []string{"everything · args-prompt city [state]: Arguments Prompt", "everything · simple-prompt: "} {
				if !strings.Contains(picked, want) {
					t.Errorf("the picker lacks %q:\n%s", want, picked)
				}
			}
			inputs := strs(res["inputs"])
			if len(inputs) != 2 || !strings.Contains(inputs[0], "city") || !strings.Contains(inputs[1], "state") || !strings.Contains(inputs[1], "[optional]") {
				t.Errorf("vim.ui.input asked %q, want city then the optional state", inputs)
			}
			approvals, _ := res["approvals"].([]any)
			if len(approvals) != 2 {
				t.Fatalf("vim.ui.select asked %d approvals, want 2 (one prompts/get each): %v", len(approvals), approvals)
			}
			if p, _ := approvals[0].(map[string]any)["prompt"].(string); !strings.Contains(p, "prompts/get args-prompt") || !strings.Contains(p, "Lyon") {
				t.Errorf("the first card is %q, want prompts/get args-prompt with the city", p)
			}
			reqs := w.model.ModelRequests("")
			if len(reqs) != 2 {
				t.Fatalf("the model got %d requests, want 2", len(reqs))
			}
			if got := reqs[0].LastUserText(); got != "What's weather in Lyon?" {
				t.Errorf("the first turn is %q, want args-prompt's message", got)
			}
			if got := reqs[1].LastUserText(); got != "This is a simple prompt without arguments." {
				t.Errorf("the second turn is %q, want simple-prompt's message", got)
			}
		})
	}
}
