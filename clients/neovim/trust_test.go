package neovim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestTrustFromMcpFloat: a server declared by the repository never starts
// without consent: declined on open, it waits in :AgentMcp; `t` on it shows
// the launch card with the literal command (vim.ui.select) again, and once
// trusted the server connects.
func TestTrustFromMcpFloat(t *testing.T) {
	for _, ed := range editors {
		t.Run("nvim "+ed.label+": a workspace server starts only after its launch card is accepted", func(t *testing.T) {
			nvim := testenv.Editor(t, ed.name)
			real := testenv.NodeBin(t, "mcp-server-everything")
			w := newWorld(t, "openai")
			everything := filepath.Join(w.dir, "bin", "mcp-server-everything")
			if err := os.Symlink(real, everything); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(w.ws, ".agentls"), 0o755); err != nil {
				t.Fatal(err)
			}
			repoConfig := "[mcp.servers.repo]\ncommand = \"" + everything + "\"\nconnect_timeout = \"60s\"\n"
			if err := os.WriteFile(filepath.Join(w.ws, ".agentls", "config.toml"), []byte(repoConfig), 0o644); err != nil {
				t.Fatal(err)
			}

			res := w.runNvim(t, nvim, "-u", script(t, "init.lua"), w.file, "-c", "luafile "+script(t, "trust.lua"))

			before := strings.Join(strs(res["before"]), "\n")
			if !strings.Contains(before, "repo  [needs_approval]  (workspace)") {
				t.Errorf("before consent the float shows:\n%s\nwant repo [needs_approval] (workspace)", before)
			}
			cards, _ := res["cards"].([]any)
			if len(cards) != 2 {
				t.Fatalf("vim.ui.select asked %d times, want twice (the launch card on open, declined; then from the float): %v", len(cards), cards)
			}
			for i, c := range cards {
				card := c.(map[string]any)
				prompt, _ := card["prompt"].(string)
				if card["kind"] != "mcp_launch" || !strings.Contains(prompt, everything) || !strings.Contains(prompt, w.ws) {
					t.Errorf("launch card %d = %v, want kind mcp_launch with the literal command %s and the cwd", i, card, everything)
				}
			}
			if after := strings.Join(strs(res["after"]), "\n"); !strings.Contains(after, "repo  [connected]  (workspace)") || !strings.Contains(after, "repo__echo") {
				t.Errorf("after consent the float shows:\n%s\nwant repo connected with its tools", after)
			}
		})
	}
}
