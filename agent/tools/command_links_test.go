package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/wire"
)

// TestAutopilotAsksForACommandReadingALinkOutOfTheWorkspace: a repo commits
// notes.txt -> a key file outside it; an injected prompt asks for `cat notes.txt`.
// The classifier sees a plain relative path and calls it safe, so under
// autopilot the key went to the model without a card.
func TestAutopilotAsksForACommandReadingALinkOutOfTheWorkspace(t *testing.T) {
	tt := newToolTest(t)
	tt.env.Mode = modeIs(wire.ModeAutopilot)
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	writeFileT(t, filepath.Join(outside, "key.txt"), "PRIVATE-KEY-TEXT\n")
	writeFileT(t, filepath.Join(tt.dir, "real.txt"), "plain\n")
	for link, target := range map[string]string{"notes.txt": filepath.Join(outside, "key.txt"), "docs": outside, "inside.txt": "real.txt"} {
		if err := os.Symlink(target, filepath.Join(tt.dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	tt.deny = true
	for _, cmd := range []string{"cat notes.txt", "head -n 1 notes.txt", "cat docs/key.txt", "ls docs", "grep -r KEY docs"} {
		before := len(tt.asks)
		out, _, status := tt.call("run_command", `{"command":"`+cmd+`"}`)
		if strings.Contains(out, "PRIVATE-KEY-TEXT") || status != "denied" || len(tt.asks) != before+1 {
			t.Errorf("%s under autopilot: %s %q; want a card (denied here)", cmd, status, out)
			continue
		}
		if d := tt.asks[len(tt.asks)-1].Detail; !strings.Contains(d, "outside the workspace") {
			t.Errorf("%s: the card does not say why: %q", cmd, d)
		}
	}
	tt.deny = false
	before := len(tt.asks)
	for _, cmd := range []string{"cat real.txt", "cat inside.txt"} {
		if out, isErr, _ := tt.call("run_command", `{"command":"`+cmd+`"}`); isErr || !strings.Contains(out, "plain") || len(tt.asks) != before {
			t.Errorf("%s under autopilot = %q, asks %d; want it run without a card", cmd, out, len(tt.asks)-before)
		}
	}
}
