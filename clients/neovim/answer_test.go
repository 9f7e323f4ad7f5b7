package neovim_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestTheAnswerIsShownWhole: a task started from a code action shows its
// prompt in the live transcript (it said "task t1" before), and an
// :AgentRun answer of several lines is not cut to one echo line: it opens
// in the chat's conversation beside the file, the cursor left where it was.
func TestTheAnswerIsShownWhole(t *testing.T) {
	const long = "Here is more.\nThe file greets the world.\nIt says hello."
	for _, ed := range editors {
		t.Run(ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			w := newWorld(t, "openai", modeltest.Turn{Text: "Noted."}, modeltest.Turn{Text: long})
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "answer.lua"))
			if tr, _ := res["code_action_transcript"].(string); strings.Contains(tr, "## task ") {
				t.Errorf("the code action's task is headed by its id, not its prompt:\n%s", tr)
			}
			var said string
			for _, n := range strs(res["notify"]) {
				if strings.HasPrefix(n, "agentls: end_turn") {
					said = n
				}
			}
			if strings.Contains(said, "Here is more.") && !strings.Contains(said, "It says hello.") {
				t.Errorf("the answer was cut to its first line: %q", said)
			}
			if !strings.Contains(said, ":AgentChat") {
				t.Errorf("the result message %q does not say where the answer is", said)
			}
			if !contains(strs(res["shown"]), "agentls://chat/prompt") || res["current_buffer"] != true {
				t.Errorf("windows %v (cursor in the file: %v), want the chat beside the file and the cursor left in it", res["shown"], res["current_buffer"])
			}
			if conv, _ := res["conversation"].(string); !strings.Contains(conv, "## tell me more") || !strings.Contains(conv, long) {
				t.Errorf("the conversation lacks the whole answer:\n%s", conv)
			}
		})
	}
}
