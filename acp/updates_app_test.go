package acp

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestAnAppIsNamedThroughACP drives agentls acp with the official ACP
// client: the model calls the real MCP App server's get-time, whose
// definition names a ui:// App; an ACP editor cannot show it, so the
// call's completed update carries the tool's text result and then says
// that the tool offered a UI this editor cannot show.
func TestAnAppIsNamedThroughACP(t *testing.T) {
	w := newWorld(t, testenv.AppServerConfig(t))
	w.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "basic__get-time", Input: `{}`}}}, modeltest.Turn{Text: "it is now"})
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root}, {Op: "prompt", Text: "what time is it"}}})
	ups := out.toolUpdates("t1")
	if len(ups) == 0 {
		t.Fatal("no updates for the call")
	}
	last := ups[len(ups)-1]
	var texts []string
	for _, c := range last.contents() {
		texts = append(texts, c.Content.Text)
	}
	want := "This tool offered a UI (ui://get-time/mcp-app.html) that this editor cannot show; its result is the text above."
	if last.Status != "completed" || len(texts) != 2 || !strings.HasPrefix(texts[0], "20") || texts[1] != want {
		t.Fatalf("last update %s with %q, want completed with the time, then %q", last.Status, texts, want)
	}
	t.Logf("the call's content: %q", texts)
}
