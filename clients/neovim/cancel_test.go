package neovim_test

import (
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestCancel: :AgentCancel ends a task whose model stream hangs, with stop
// reason "cancelled", and the statusline goes idle.
func TestCancel(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label+": AgentCancel ends a hung task as cancelled", func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			w := newWorld(t, "anthropic", modeltest.Turn{Text: "Let me think about this.", Hang: true})
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "cancel.lua"))

			if res["statusline_running"] == "" {
				t.Errorf("statusline was empty while the task ran")
			}
			result, _ := res["result"].(map[string]any)
			if result["stopReason"] != "cancelled" {
				t.Errorf("agent/run result = %v, want stopReason cancelled", result)
			}
			if n := len(w.model.ModelRequests("")); n != 1 {
				t.Errorf("model got %d requests, want 1 (nothing after the cancel)", n)
			}
		})
	}
}
