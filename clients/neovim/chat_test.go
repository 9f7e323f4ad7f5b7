package neovim_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

const (
	followUp   = "It now reads:\nHello, world!\nfrom the agent"
	reopenText = "We talked about greeting.txt."
)

// TestChat drives :AgentChat as a user does, in each Neovim: a turn with a
// tool call, its approval and the edit it proposes (landing in the
// buffer), a follow-up that refers to the first answer, a turn cancelled
// with <C-c> while the model streams, the chat closed and shown again; then
// a later Neovim on the same state reopens the session with :AgentSessions
// and continues it.
func TestChat(t *testing.T) {
	for _, ed := range editors {
		t.Run(ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			input, _ := json.Marshal(map[string]string{"path": "greeting.txt", "content": newContent})
			w := newWorld(t, "openai",
				modeltest.Turn{Text: "I will rewrite the file.", ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "write_file", Input: string(input)}}},
				modeltest.Turn{Text: finalText},
				modeltest.Turn{Text: followUp},
				modeltest.Turn{Text: "Let me think", Hang: true},
				modeltest.Turn{Text: reopenText},
			)
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "chat.lua"))
			session, _ := res["session"].(string)
			if session == "" {
				t.Fatalf("no session after :AgentChat: %v", res)
			}
			if n, _ := res["windows"].(float64); n != 3 {
				t.Errorf(":AgentChat left %v windows, want 3 (the file, the conversation, the prompt)", res["windows"])
			}
			if got := res["conversation_name"]; got != "agentls://transcript/"+session {
				t.Errorf("the conversation buffer is %v, want the session's transcript", got)
			}
			if got := strs(res["prompt_after_send"]); len(got) != 1 || got[0] != "" {
				t.Errorf("the prompt after <CR> holds %q, want it emptied", got)
			}
			w.checkEditLanded(t, res)
			cards := strs(res["cards"])
			if len(cards) != 1 || !strings.Contains(cards[0], "greeting.txt") {
				t.Fatalf("approval cards %q, want one naming greeting.txt", cards)
			}
			// The card shows the write as a unified diff with line numbers.
			for _, want := range []string{"@@ -1", "1   -say hello to the world", "  1 +Hello, world!", "  2 +from the agent"} {
				if !strings.Contains(cards[0], want) {
					t.Errorf("the write's card lacks %q (a unified diff with line numbers):\n%s", want, cards[0])
				}
			}
			first, _ := res["after_first"].(string)
			for _, want := range []string{"## rewrite @file as a greeting", "I will rewrite the file.", "> write_file greeting.txt (completed)", finalText, "--- end_turn"} {
				if !strings.Contains(first, want) {
					t.Errorf("after the first turn the conversation lacks %q:\n%s", want, first)
				}
			}
			if d, _ := res["detail_line"].(string); !strings.HasPrefix(d, "  │ ") || res["detail_folded"] != true {
				t.Errorf("the call's detail line %q folded=%v, want a folded line under the call", d, res["detail_folded"])
			}
			conv, _ := res["conversation"].(string)
			for _, want := range []string{"## what did you just rewrite?", followUp, "## take your time", "Let", "--- cancelled"} {
				if !strings.Contains(conv, want) {
					t.Errorf("the conversation lacks %q:\n%s", want, conv)
				}
			}
			if res["statusline_running"] == "" {
				t.Errorf("the statusline was empty while the third turn ran")
			}
			if res["windows_closed"] != float64(1) || res["windows_reopened"] != float64(3) || res["same_after_reopen"] != true {
				t.Errorf("closed: %v windows, reopened: %v, same conversation and session: %v; want 1, 3, true",
					res["windows_closed"], res["windows_reopened"], res["same_after_reopen"])
			}

			reqs := w.model.ModelRequests("")
			if len(reqs) != 4 {
				t.Fatalf("the model got %d requests, want 4 (tool call, answer, follow-up, the cancelled turn)", len(reqs))
			}
			if !strings.Contains(reqs[0].LastUserText(), "rewrite @file as a greeting") || !strings.Contains(string(reqs[0].Body), "greeting.txt") {
				t.Errorf("the first request lacks the prompt or @file's document: %s", reqs[0].LastUserText())
			}
			if !strings.Contains(string(reqs[2].Body), finalText) || !strings.Contains(reqs[2].LastUserText(), "what did you just rewrite?") {
				t.Errorf("the follow-up was not sent with the first answer before it:\n%s", reqs[2].Body)
			}
			if strings.Contains(string(reqs[2].Body), "say hello to the world") {
				t.Errorf("the follow-up named no @file, yet the file's text went with it:\n%s", reqs[2].Body)
			}

			// A later Neovim on the same state: :AgentSessions reopens it.
			w.env = append(w.env, "AGENTLS_E2E_PHASE=reopen", "AGENTLS_E2E_SESSION="+session)
			res = w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "chat.lua"))
			if res["session"] != session {
				t.Errorf("the reopened chat continues %v, want %s", res["session"], session)
			}
			if labels := strs(res["session_labels"]); len(labels) == 0 {
				t.Errorf("the session picker listed nothing")
			}
			reopened, _ := res["reopened"].(string)
			for _, want := range []string{"rewrite @file as a greeting", finalText, "what did you just rewrite?"} {
				if !strings.Contains(reopened, want) {
					t.Errorf("the reopened conversation lacks %q:\n%s", want, reopened)
				}
			}
			reqs = w.model.ModelRequests("")
			if len(reqs) != 5 {
				t.Fatalf("the model got %d requests, want 5", len(reqs))
			}
			last := string(reqs[4].Body)
			if !strings.Contains(last, finalText) || !strings.Contains(last, "Hello, world!") || !strings.Contains(reqs[4].LastUserText(), "and before that?") {
				t.Errorf("the reopened session's turn was not sent with the earlier turns:\n%s", last)
			}
		})
	}
}
