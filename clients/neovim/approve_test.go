package neovim_test

import (
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
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

// TestTypingWhileTheCardIsOpen: the user types a line into the buffer while
// the edit's picker is open, then allows it. The typed line stays and the
// agent's replacement lands beside it, in the buffer (not on disk).
func TestTypingWhileTheCardIsOpen(t *testing.T) {
	for _, ed := range editors {
		t.Run(ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			w := newWorld(t, "openai",
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "edit_file", Input: `{"path":"greeting.txt","old_text":"hello","new_text":"HELLO"}`}}},
				modeltest.Turn{Text: "Shouted."},
			)
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "stale.lua"))
			if result, _ := res["result"].(map[string]any); result["stopReason"] != "end_turn" {
				t.Errorf("agent/run result = %v, want end_turn", result)
			}
			want := "typed while the card was open\nsay HELLO to the world"
			if got := strings.Join(strs(res["lines"]), "\n"); got != want {
				t.Errorf("buffer = %q, want %q: the typed line and the edit both kept", got, want)
			}
			if disk, _ := os.ReadFile(w.file); string(disk) != original {
				t.Errorf("greeting.txt on disk = %q, want it untouched", disk)
			}
		})
	}
}
