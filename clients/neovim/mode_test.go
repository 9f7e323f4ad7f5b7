package neovim_test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestModeAndRules, in real Neovim 0.7.2 and 0.10: a command card offers
// allow_always naming its rule and choosing it saves the rule; :AgentMode
// plan switches the session (the statusline shows agentls [plan]) and the
// model's write is refused without a card, the buffer and file unchanged;
// :AgentRules forgets the rule.
func TestModeAndRules(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			write, _ := json.Marshal(map[string]string{"path": "greeting.txt", "content": newContent})
			w := newWorld(t, "openai",
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "run_command", Input: `{"command":"echo nvim-rule"}`}}},
				modeltest.Turn{Text: "ran it"},
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: string(write)}}},
				modeltest.Turn{Text: "could not write"},
			)
			// A price for the fake model: the usage component shows the cost.
			f, err := os.OpenFile(w.configPath(), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("\n[prices.\"fake-model\"]\ninput = 3\noutput = 15\ncache_read = 0.3\n")
			f.Close()
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "mode.lua"))
			// require('agentls').usage(): the last turn's tokens, cache
			// share and cost, then the session's (two turns of one session).
			usage := regexp.MustCompile(`^[0-9,]+ in \([0-9]+% cache\) · [0-9,]+ out · \$[0-9.]+ · session [0-9,]+ in, [0-9,]+ out, \$[0-9.]+$`)
			first, after := fmt.Sprint(res["usage_first"]), fmt.Sprint(res["usage_after"])
			if !usage.MatchString(first) || !usage.MatchString(after) || first == after {
				t.Errorf("usage() after the first task %q and the second %q, want the turn's tokens and cost, then the session's growing", first, after)
			}
			cards, _ := res["cards"].([]any)
			if len(cards) != 1 {
				t.Fatalf("cards %v: want only the command's (the write in plan mode asks nothing)", cards)
			}
			if c := cards[0].(map[string]any); c["kind"] != "command" || c["rule"] != "command: echo nvim-rule" {
				t.Errorf("the command's card %v, want kind command naming its rule", c)
			}
			if res["statusline_ask"] != "" || res["statusline_plan"] != "agentls [plan]" || res["statusline_after"] != "agentls [plan]" {
				t.Errorf("statusline ask %q, plan %q, after the plan-mode task %q", res["statusline_ask"], res["statusline_plan"], res["statusline_after"])
			}
			for _, k := range []string{"first", "second"} {
				if r, _ := res[k].(map[string]any); r["stopReason"] != "end_turn" {
					t.Errorf("%s task: %v", k, r)
				}
			}
			if got := strings.Join(strs(res["lines"]), "\n") + "\n"; got != original {
				t.Errorf("the buffer changed in plan mode: %q", got)
			}
			reqs := w.model.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d model requests", len(reqs))
			}
			rs := reqs[3].ToolResults()
			if last := rs[len(rs)-1]; last.ToolUseID != "w1" || !strings.Contains(last.Content, "plan mode is read-only") {
				t.Errorf("the write's result %+v, want plan mode's refusal", last)
			}
			if rev, _ := res["revoked"].(map[string]any); rev == nil || len(rev["revoked"].([]any)) != 1 {
				t.Errorf(":AgentRules revoked %v, want the one rule", res["revoked"])
			}
		})
	}
}
