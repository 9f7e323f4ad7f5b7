package neovim_test

import (
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestLuaUnits runs the table tests of testdata/unit.lua (approval cards,
// quoting, the server list, the statusline, the transcript renderer) inside
// each Neovim version, without a server.
func TestLuaUnits(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label, func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			w := newWorld(t, "openai")
			res := w.runNvim(t, nvim, "-u", "NONE", "-c", "luafile "+script(t, "unit.lua"))
			if n, _ := res["ran"].(float64); n < 20 {
				t.Errorf("ran %v checks, want at least 20", res["ran"])
			}
			for _, f := range strs(res["failures"]) {
				t.Error(f)
			}
		})
	}
}
