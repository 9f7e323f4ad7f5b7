package neovim_test

import (
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestHooks is [hooks] end to end in real Neovim 0.7.2, 0.10 and 0.12:
// the user's before_tool hook denies the model's `rm -rf build` (exit 2)
// before its card, so none is shown, and the hook's output is the reason
// the transcript shows and the model reads; an after_tool hook's output is
// added to the result; a turn_end hook's output comes as a status line.
// The build folder is still there.
func TestHooks(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			w := newWorld(t, "openai",
				modeltest.Turn{ToolCalls: []modeltest.ToolCall{
					{ID: "c1", Name: "run_command", Input: `{"command":"rm -rf build"}`},
					{ID: "r1", Name: "read_file", Input: `{"path":"greeting.txt"}`},
				}},
				modeltest.Turn{Text: "the hook stopped me"},
			)
			if err := os.MkdirAll(w.ws+"/build", 0o755); err != nil {
				t.Fatal(err)
			}
			hooks := `
[[hooks.before_tool]]
command = ["sh", "-c", "echo 'hook: rm is not allowed in this repository'; exit 2"]
tools = ["run_command"]

[[hooks.after_tool]]
command = ["sh", "-c", "echo after-hook saw the call"]

[[hooks.turn_end]]
command = ["sh", "-c", "echo turn-end hook ran"]
`
			f, err := os.OpenFile(w.configPath(), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(hooks)
			f.Close()
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "hooks.lua"))
			if res["cards"] != 0.0 {
				t.Errorf("%v cards: a call the hook denied must not ask", res["cards"])
			}
			conv, _ := res["transcript"].(string)
			for _, want := range []string{"denied by your before_tool hook", "hook: rm is not allowed in this repository", "turn_end hook sh -c echo turn-end hook ran (exit status 0): turn-end hook ran"} {
				if !strings.Contains(conv, want) {
					t.Errorf("the transcript lacks %q:\n%s", want, conv)
				}
			}
			reqs := w.model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			rs := reqs[1].ToolResults()
			// The denied call never ran, so no after_tool hook ran for it;
			// the read did, and its hook's line follows the file.
			if len(rs) != 2 || !rs[0].IsError || !strings.Contains(rs[0].Content, "hook: rm is not allowed in this repository") || strings.Contains(rs[0].Content, "after-hook") ||
				rs[1].IsError || !strings.Contains(rs[1].Content, "say hello to the world") || !strings.Contains(rs[1].Content, "added:]\nafter-hook saw the call") {
				t.Errorf("the model read %+v, want the denial with the hook's reason, then the file with the after_tool hook's line", rs)
			}
			if _, err := os.Stat(w.ws + "/build"); err != nil {
				t.Errorf("the build folder is gone: %v", err)
			}
		})
	}
}
