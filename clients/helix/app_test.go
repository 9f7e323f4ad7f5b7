package helix_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestHelixSaysAnAppIsNotShown: a task started by code action, whose
// model calls the real MCP App server's get-time (its definition names a
// ui:// App). Helix cannot show an App: the task's transcript, opened
// with agentls.transcript, says that the tool offered a UI this editor
// cannot show.
func TestHelixSaysAnAppIsNotShown(t *testing.T) {
	w := startHelixConfig(t, map[string]string{"main.go": original}, "[mcp]\nstartup_wait = \"60s\"\n\n"+testenv.AppServerConfig(t),
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "basic__get-time", Input: `{}`}}},
		modeltest.Turn{Text: "It is late."},
	)
	w.scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "add a function Sum`), 30*time.Second)
	w.scr.waitFor(regexp.MustCompile(`It is late\.`), 60*time.Second, "the task's summary")
	w.scr.command(":lsp-workspace-command agentls.transcript")
	scr := w.scr.waitFor(regexp.MustCompile(regexp.QuoteMeta("basic__get-time offered a UI (ui://get-time/mcp-app.html) that this editor cannot show")),
		15*time.Second, "the transcript's line on the App")
	t.Logf("the transcript:\n%s", scr)
	quit(t, w.scr)
}
