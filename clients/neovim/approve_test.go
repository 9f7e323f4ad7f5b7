package neovim_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestApproveLater: on 0.10 an unanswered approval picker leaves the editor
// usable (the request waits in a coroutine), and :AgentApprove answers the
// waiting approval through agent/approvals and agent/resolveApproval. (On 0.7
// the reply must come from the handler itself, which waits in place, so
// there is no later.)
func TestApproveLater(t *testing.T) {
	nvim := testenv.Editor(t, "nvim-0.10")
	w := newWorld(t, "openai")
	res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "approve.lua"))

	if res["statusline_waiting"] != "agentls: approval needed" {
		t.Errorf("statusline while waiting = %q, want \"agentls: approval needed\"", res["statusline_waiting"])
	}
	if n, _ := res["asked"].(float64); n != 2 {
		t.Errorf("vim.ui.select was called %v times, want 2 (the ignored card, then :AgentApprove)", res["asked"])
	}
	if p, _ := res["second_prompt"].(string); !strings.Contains(p, "greeting.txt") {
		t.Errorf(":AgentApprove card = %q, want it to name greeting.txt", p)
	}
	if result, _ := res["result"].(map[string]any); result["stopReason"] != "end_turn" {
		t.Errorf("agent/run result = %v, want end_turn", result)
	}
	w.checkEditLanded(t, res)
	w.checkModelSaw(t, "make it a greeting")
}
