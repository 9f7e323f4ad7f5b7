package neovim_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestCheckhealth: :checkhealth agentls reports the server binary with its
// version and the running client's root and protocol, with no error.
func TestCheckhealth(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			w := newWorld(t, "openai")
			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "health.lua"))
			report := strings.Join(strs(res["report"]), "\n")
			for _, want := range []string{"agentls 0.", "root " + w.ws + ", protocol version 1"} {
				if !strings.Contains(report, want) {
					t.Errorf(":checkhealth agentls lacks %q:\n%s", want, report)
				}
			}
			if strings.Contains(report, "ERROR") {
				t.Errorf(":checkhealth agentls reports an error:\n%s", report)
			}
		})
	}
}
