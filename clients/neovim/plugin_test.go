package neovim_test

import (
	"github.com/agentls/agentls/agent/model/modeltest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestPlugin drives the Lua plugin as a user would: setup{} in the init
// attaches agentls, :'<,'>AgentRun starts a task with the selection as
// context, the approval comes through agent/requestApproval and
// vim.ui.select, the edit lands in the buffer, the live transcript holds the
// streamed text, and :AgentTranscript, :AgentMcp and :AgentNewChat work.
func TestPlugin(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label+": AgentRun task asks through vim.ui.select, edits the buffer, streams the transcript", func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			w := newWorld(t, "anthropic")
			summaries := 0
			w.model.Answer(func(r modeltest.Request) (modeltest.Turn, bool) {
				if strings.Contains(r.System(), "You compact a coding agent's conversation") {
					summaries++
					return modeltest.Turn{Text: "The user asked for a greeting; the file was rewritten."}, true
				}
				return modeltest.Turn{}, false
			})
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "plugin.lua"))

			if !strings.HasPrefix(ed.label, res["version"].(string)) {
				t.Errorf("ran Neovim %v, want %s", res["version"], ed.label)
			}
			if n, _ := res["attached"].(float64); n != 1 {
				t.Errorf("%v agentls clients attached to the buffer, want 1", res["attached"])
			}
			approvals, _ := res["approvals"].([]any)
			if len(approvals) != 1 {
				t.Fatalf("vim.ui.select was asked %d times, want once (the write): %v", len(approvals), approvals)
			}
			a := approvals[0].(map[string]any)
			if a["kind"] != "agentls.approval" || !strings.Contains(a["prompt"].(string), "greeting.txt") {
				t.Errorf("approval select = %v, want kind agentls.approval and a card naming greeting.txt", a)
			}
			if !contains(strs(a["options"]), "Allow once") {
				t.Errorf("approval options = %v, want \"Allow once\" among them", a["options"])
			}
			// The picker answered later: 0.10 runs the request in a coroutine
			// and yields; 0.7 must reply from the handler, so it waits in place.
			wantWait := map[string]string{"0.7.2": "vim.wait", "0.10": "coroutine", "0.12": "coroutine"}[ed.label]
			if res["approval_wait"] != wantWait {
				t.Errorf("approval awaited by %v, want %s", res["approval_wait"], wantWait)
			}
			if a["statusline"] != "agentls: approval needed" {
				t.Errorf("statusline while asking = %q, want \"agentls: approval needed\"", a["statusline"])
			}
			if res["statusline_after"] != "" {
				t.Errorf("statusline after the task = %q, want empty", res["statusline_after"])
			}
			w.checkEditLanded(t, res)

			transcript := strings.Join(strs(res["transcript"]), "\n")
			for _, want := range []string{"## make it a greeting", finalText, "write_file", "--- end_turn"} {
				if !strings.Contains(transcript, want) {
					t.Errorf("transcript buffer lacks %q:\n%s", want, transcript)
				}
			}
			if name, _ := res["transcript_window"].(string); !strings.Contains(name, "agentls://transcript/") {
				t.Errorf(":AgentTranscript showed %q, want the live transcript buffer", name)
			}
			file, _ := res["transcript_file"].(string)
			if !strings.HasPrefix(file, filepath.Join(w.dir, "state")+string(filepath.Separator)) {
				t.Errorf(":AgentTranscript! opened %q, want the Markdown transcript under the state directory", file)
			}
			if md := strings.Join(strs(res["transcript_file_lines"]), "\n"); !strings.Contains(md, "make it a greeting") || !strings.Contains(md, finalText) {
				t.Errorf("Markdown transcript lacks the prompt or the final text:\n%s", md)
			}
			mcp, _ := res["mcp"].(map[string]any)
			if mcp == nil || mcp["focused"] != true || !strings.Contains(strings.Join(strs(mcp["lines"]), "\n"), "No MCP servers configured") {
				t.Errorf(":AgentMcp float = %v, want a focused float saying no servers are configured", mcp)
			}
			if c, _ := res["compacted"].(map[string]any); c == nil || c["sessionId"] != res["session"] || c["tokensBefore"] == nil || summaries != 2 {
				t.Errorf(":AgentCompact gave %v for session %v (%d summary requests), want the session compacted by a model summary twice (:AgentCompact, then compact())", res["compacted"], res["session"], summaries)
			}
			if s, n := res["session"], res["new_session"]; s == nil || n == nil || s == n {
				t.Errorf("session %v, after :AgentNewChat %v: want a new session id", s, n)
			}
			w.checkModelSaw(t, "make it a greeting")
		})
	}
}
