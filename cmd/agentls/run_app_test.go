package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestRunAndChatSayTheAppIsNotShown: the model calls the real MCP App
// server's get-time, whose definition names a ui:// App. Neither
// `agentls run` nor `agentls chat` can show it: each says that the tool
// offered a UI this front cannot show, and the model gets the text result.
func TestRunAndChatSayTheAppIsNotShown(t *testing.T) {
	e := newRunEnv(t, "anthropic", `"basic__get-time" = "allow"`)
	f, err := os.OpenFile(e.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n[mcp.servers.basic]\ncommand = %q\nargs = [%q, \"--stdio\"]\n", testenv.Tool(t, "node"), testenv.NodeBin(t, "mcp-server-basic-vanillajs"))
	f.Close()
	const notice = "agentls: basic__get-time offered a UI (ui://get-time/mcp-app.html) that this editor cannot show; its result is the text above"
	call := modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "basic__get-time", Input: `{}`}}}

	e.model.Script(call, modeltest.Turn{Text: "It is late."})
	code, stdout, stderr := e.run(t, "what time is it")
	if code != 0 || !strings.Contains(stderr, notice) || !strings.Contains(stdout, "It is late.") {
		t.Fatalf("agentls run: exit %d, stdout %q, stderr lacks %q:\n%s", code, stdout, notice, stderr)
	}
	if results := e.model.Requests()[1].ToolResults(); len(results) != 1 || !strings.HasPrefix(results[0].Content, "20") {
		t.Errorf("the model got %+v, want the time as text", results)
	}

	e.model.Script(call, modeltest.Turn{Text: "Still late."})
	term := onTerminal(t, e, "chat", 200, 50)
	term.wait("/help for commands", true)
	term.keys("-l", "and now?")
	term.keys("Enter")
	term.wait("Still late.", true)
	screen := term.wait(notice, true)
	t.Logf("agentls chat:\n%s", strings.TrimSpace(screen))
}
