package agent

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// appServers is the real MCP App server on npm (server-basic-vanillajs:
// get-time names ui://get-time/mcp-app.html) and server-everything, both
// on stdio; no policy rule, so every call asks.
func appServers(t *testing.T) func(*Options) {
	node := testenv.Tool(t, "node")
	basic := testenv.NodeBin(t, "mcp-server-basic-vanillajs")
	everything := testenv.NodeBin(t, "mcp-server-everything")
	return withServers(t, func(root string) []config.Server {
		return []config.Server{
			{Name: "basic", Origin: config.User, Command: node, Cwd: root, Args: []string{basic, "--stdio"}},
			{Name: "everything", Origin: config.User, Command: node, Cwd: root, Args: []string{everything, "stdio"}},
		}
	})
}

// TestE2EAppOfAToolResult: the model's call of a tool that offers an MCP
// App ends with a tool_result naming it; a front that shows Apps reads it
// with App, and one that cannot gets a status event and a transcript line
// saying so. What the App calls (AppCall) asks on a card that names the
// App, like the model's own call, and reaches only its own server's tools.
func TestE2EAppOfAToolResult(t *testing.T) {
	f := newFixture(t, "anthropic", appServers(t))
	call := modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_t", Name: "basic__get-time", Input: `{}`}}}

	ev := &events{}
	f.model.Script(call, modeltest.Turn{Text: "done"})
	res := f.run(t, RunRequest{Prompt: "what time is it"}, TaskIO{Events: ev, Approver: &answer{opt: string(wire.OptionAllowOnce)}, ShowsApps: true})
	trs := ev.ofType(string(wire.EventToolResult))
	if len(trs) != 1 || trs[0].UI == nil {
		t.Fatalf("tool_result: %+v", trs)
	}
	if ui := trs[0].UI; ui.Server != "basic" || ui.Tool != "get-time" || ui.ResourceURI != "ui://get-time/mcp-app.html" ||
		!strings.HasPrefix(string(ui.StructuredContent), `{"time":"20`) {
		t.Fatalf("tool_result ui: %+v (%s)", ui, ui.StructuredContent)
	}
	for _, e := range ev.ofType(string(wire.EventStatus)) {
		if strings.Contains(e.Message, "cannot show") {
			t.Errorf("a front that shows Apps was told it cannot: %q", e.Message)
		}
	}
	app, err := f.core.App(context.Background(), wire.AppParams{Server: "basic", ResourceURI: trs[0].UI.ResourceURI})
	if err != nil || !strings.Contains(app.HTML, "<html") || app.CSP.ConnectDomains == nil {
		t.Fatalf("App: %v, %d bytes, %+v", err, len(app.HTML), app.CSP)
	}

	plain := &events{}
	f.model.Script(call, modeltest.Turn{Text: "done"})
	res = f.run(t, RunRequest{Prompt: "again", SessionID: res.SessionID}, TaskIO{Events: plain, Approver: &answer{opt: string(wire.OptionAllowOnce)}})
	const notice = "basic__get-time offered a UI (ui://get-time/mcp-app.html) that this editor cannot show"
	said := false
	for _, e := range plain.ofType(string(wire.EventStatus)) {
		said = said || strings.Contains(e.Message, notice)
	}
	if !said {
		t.Errorf("no status event %q: %+v", notice, plain.ofType(string(wire.EventStatus)))
	}
	if b, _ := os.ReadFile(session.TranscriptPath(f.state, res.SessionID)); !strings.Contains(string(b), notice) {
		t.Errorf("the transcript lacks %q:\n%s", notice, b)
	}

	// The App's own call: a card naming the App; denied, nothing runs.
	no := &answer{opt: string(wire.OptionRejectOnce)}
	got := f.core.AppCall(context.Background(), wire.AppCallParams{SessionID: res.SessionID, Server: "basic",
		ResourceURI: "ui://get-time/mcp-app.html", Tool: "get-time", Arguments: []byte(`{}`)}, TaskIO{Approver: no})
	cards := no.asked()
	if len(cards) != 1 || !strings.HasPrefix(cards[0].Title, "the App ui://get-time/mcp-app.html of basic asks: ") || got.Status != wire.StatusDenied {
		t.Fatalf("denied App call: %+v, cards %+v", got, cards)
	}
	yes := &answer{opt: string(wire.OptionAllowOnce)}
	got = f.core.AppCall(context.Background(), wire.AppCallParams{SessionID: res.SessionID, Server: "basic",
		ResourceURI: "ui://get-time/mcp-app.html", Tool: "get-time"}, TaskIO{Approver: yes})
	if got.IsError || got.Status != wire.StatusCompleted || !strings.HasPrefix(string(got.StructuredContent), `{"time":"20`) || len(yes.asked()) != 1 {
		t.Fatalf("allowed App call: %+v", got)
	}
	// Another server's tool, or a UI no tool offers: refused before any card.
	for _, p := range []wire.AppCallParams{
		{SessionID: res.SessionID, Server: "basic", ResourceURI: "ui://get-time/mcp-app.html", Tool: "echo"},
		{SessionID: res.SessionID, Server: "everything", ResourceURI: "ui://get-time/mcp-app.html", Tool: "echo"},
		{SessionID: res.SessionID, Server: "basic", ResourceURI: "ui://other", Tool: "get-time"},
	} {
		asked := &answer{opt: string(wire.OptionAllowOnce)}
		if got := f.core.AppCall(context.Background(), p, TaskIO{Approver: asked}); !got.IsError || len(asked.asked()) != 0 {
			t.Errorf("%+v: %+v, %d cards; want refused without a card", p, got, len(asked.asked()))
		}
	}
}
