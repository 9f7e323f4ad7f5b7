package neovim_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestPlainConfig drives agentls from a plain vim.lsp config, no plugin: a
// code action starts a task, the write asks through showMessageRequest, the
// user allows it once, and the edit lands in the buffer.
func TestPlainConfig(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label+": code action task edits the buffer after a showMessageRequest approval", func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			w := newWorld(t, "openai")
			res := w.runNvim(t, nvim, "-u", "NONE", w.file, "-c", "luafile "+script(t, "plain.lua"))

			if !strings.HasPrefix(ed.label, res["version"].(string)) {
				t.Errorf("ran Neovim %v, want %s", res["version"], ed.label)
			}
			if !contains(strs(res["actions"]), "agentls: Run selection as prompt") {
				t.Errorf("code actions offered %v, want \"agentls: Run selection as prompt\"", res["actions"])
			}
			asks := strs(res["approval_messages"])
			if len(asks) != 1 || !strings.Contains(asks[0], "greeting.txt") {
				t.Errorf("showMessageRequest messages = %q, want one naming greeting.txt", asks)
			}
			progress := strs(res["progress"])
			if len(progress) < 2 || progress[0] != "begin: agentls" || !strings.HasPrefix(progress[len(progress)-1], "end: ") {
				t.Errorf("$/progress = %q, want begin (title agentls) ... end", progress)
			}
			if len(strs(res["messages"])) == 0 {
				t.Errorf("no window/showMessage summary when the task ended")
			}
			w.checkEditLanded(t, res)
			w.checkModelSaw(t, "say hello to the world")
		})
	}
}
