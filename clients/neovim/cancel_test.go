package neovim_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestCancel: :AgentRun without a prompt asks for one; :AgentCancel ends the
// task while its model stream hangs, with stop reason "cancelled", and the
// statusline goes idle.
func TestCancel(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label+": AgentCancel ends a hung task as cancelled", func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			w := newWorld(t, "anthropic", modeltest.Turn{Text: "Let me think about this.", Hang: true})
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "cancel.lua"))

			if res["statusline_running"] == "" {
				t.Errorf("statusline was empty while the task ran")
			}
			if res["input_prompt"] != "agentls> " {
				t.Errorf(":AgentRun without a prompt asked %v, want the prompt input", res["input_prompt"])
			}
			if r, _ := res["result"].(string); !strings.HasPrefix(r, "agentls: cancelled") {
				t.Errorf("the task ended with %q, want stop reason cancelled", r)
			}
			reqs := w.model.ModelRequests("")
			if len(reqs) != 1 {
				t.Fatalf("model got %d requests, want 1 (nothing after the cancel)", len(reqs))
			}
			if got := reqs[0].LastUserText(); !strings.Contains(got, "take your time") {
				t.Errorf("the model got %q, want the typed prompt", got)
			}
		})
	}
}
