package neovim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestATaskInTheConversation: a call a real 2026-07-28 server (the
// official TypeScript SDK v2) runs as a task shows in the plugin's
// conversation as running with the task's status, then completed with
// its result; a second one, still running, is cancelled with :AgentCancel
// and the server gets tasks/cancel for it.
func TestATaskInTheConversation(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			dir := t.TempDir()
			log, hold := filepath.Join(dir, "requests.log"), filepath.Join(dir, "release")
			w := newWorld(t, "openai",
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "k1", Name: "v2__long", Input: `{"steps":1,"hold":"` + hold + `"}`}}},
				modeltest.Turn{Text: "It ran."},
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "k2", Name: "v2__long", Input: `{"hold":"` + filepath.Join(dir, "never") + `"}`}}},
				modeltest.Turn{Text: "never"})
			f, err := os.OpenFile(w.configPath(), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteString("\n" + testenv.MCPv2ServerConfig(t, log))
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			w.env = append(w.env, "HOLD="+hold)
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "task.lua"))

			running, _ := res["running"].(string)
			if !strings.Contains(running, "> v2 · long (running: waiting for "+hold+")") {
				t.Errorf("while the task worked, the conversation did not show its status:\n%s", running)
			}
			if sl, _ := res["statusline_running"].(string); !strings.HasPrefix(sl, "agentls: v2__long: waiting for ") {
				t.Errorf("while the task worked, the statusline was %q, want the task's status", sl)
			}
			t.Logf("while the task worked (statusline %q):\n%s", res["statusline_running"], running)
			ended, _ := res["ended"].(string)
			if !strings.Contains(ended, "long (completed)") || !strings.Contains(ended, "finished 1 steps") || !strings.Contains(ended, "It ran.") {
				t.Errorf("the ended task's conversation lacks the completed call, its result or the answer:\n%s", ended)
			}
			if r, _ := res["first"].(map[string]any); r["stopReason"] != "end_turn" {
				t.Errorf("first result %v", r)
			}
			if r, _ := res["second"].(map[string]any); r["stopReason"] != "cancelled" {
				t.Errorf("second result %v, want cancelled", r)
			}
			b, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), "tasks/cancel t-2\n") {
				t.Errorf("no tasks/cancel reached the server:\n%s", b)
			}
		})
	}
}
