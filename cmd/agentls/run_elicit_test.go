package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// withEverything adds server-everything over Streamable HTTP to e's config
// as server "ev", its elicitation tools allowed.
func withEverything(t *testing.T, e *runEnv) {
	everything := testenv.EverythingHTTP(t, "streamableHttp")
	cfg, err := os.ReadFile(e.config)
	if err != nil {
		t.Fatal(err)
	}
	policy := "\"ev__trigger-elicitation-request\" = \"allow\"\n\"ev__trigger-url-elicitation\" = \"allow\"\n"
	s := strings.Replace(string(cfg), "[mcp.policy]\n", "[mcp.policy]\n"+policy, 1)
	if s == string(cfg) {
		s += "[mcp.policy]\n" + policy
	}
	s += fmt.Sprintf("\n[mcp.servers.ev]\nurl = %q\n", everything.URL)
	if err := os.WriteFile(e.config, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func elicitTurn(tool, input string) modeltest.Turn {
	return modeltest.Turn{Text: "Asking.", ToolCalls: []modeltest.ToolCall{{ID: "call_ev", Name: tool, Input: input}}}
}

// TestRunElicitationWithoutTerminalDeclines: with nobody at a terminal,
// server-everything's question is declined and says so.
func TestRunElicitationWithoutTerminalDeclines(t *testing.T) {
	e := newRunEnv(t, "anthropic", `"fs__read_text_file" = "allow"`)
	withEverything(t, e)
	e.model.Script(elicitTurn("ev__trigger-elicitation-request", `{}`), modeltest.Turn{Text: "Declined."})
	code, stdout, stderr := e.run(t, "ask me")
	if code != 0 || !strings.Contains(stdout, "Declined.") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if trs := e.model.Requests()[1].ToolResults(); len(trs) != 1 || !strings.Contains(trs[0].Content, "User declined") {
		t.Fatalf("tool results %+v", trs)
	}
	if !strings.Contains(stderr, "ev asked a question this front cannot show (form): declined") {
		t.Errorf("stderr does not say what was declined:\n%s", stderr)
	}
}

// TestRunElicitationOnARealTerminal runs `agentls run` in a tmux pane:
// server-everything's form is asked field by field on the terminal (its
// message quoted, the server named), what is typed reaches the server;
// a URL question prints the URL once the user picks Open.
func TestRunElicitationOnARealTerminal(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	withEverything(t, e)
	e.model.Script(elicitTurn("ev__trigger-elicitation-request", `{}`),
		elicitTurn("ev__trigger-url-elicitation", `{"url":"http://127.0.0.1:9/consent","message":"Approve the export"}`),
		modeltest.Turn{Text: "Answered."})
	term := runOnTerminal(t, e, "ask me", 220, 80)
	waitScreen := func(want string) string { t.Helper(); return term.wait(want, true) }
	tm := func(args ...string) { term.tm(args...) }
	screen := waitScreen("name (String) [string, required]:")
	for _, want := range []string{"ev asks: Please provide inputs", "MCP server ev asks (its own words):", "│ Please provide inputs for the following fields:"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the card lacks %q:\n%s", want, screen)
		}
	}
	tm("send-keys", "-t", "run", "Grace Hopper", "Enter")
	waitScreen("birthdate (String with date format) [string]:")
	tm("send-keys", "-t", "run", "Enter")
	waitScreen("check (Boolean) [y/n]:")
	tm("send-keys", "-t", "run", "y", "Enter")
	for _, f := range []string{"email (String with email format) [string]:", "firstLine (String with default) [string, default"} {
		waitScreen(f)
		tm("send-keys", "-t", "run", "Enter")
	}
	waitScreen("homepage (String with uri format) [string]:")
	tm("send-keys", "-t", "run", "Enter")
	waitScreen("integer (Integer) [integer, default 42]:")
	tm("send-keys", "-t", "run", "500", "Enter")
	waitScreen("out of range (1..100)")
	tm("send-keys", "-t", "run", "7", "Enter")
	for i := 0; i < 6; i++ {
		tm("send-keys", "-t", "run", "Enter")
	}
	waitScreen("[y] send to ev  [N] decline:")
	tm("send-keys", "-t", "run", "y", "Enter")
	waitScreen("[1] Open 127.0.0.1:9  [2] Decline:")
	tm("send-keys", "-t", "run", "1", "Enter")
	screen = waitScreen("Open this URL in your browser:")
	if !strings.Contains(screen, "  http://127.0.0.1:9/consent") {
		t.Errorf("no URL printed:\n%s", screen)
	}
	term.exitsWith0()
	reqs := e.model.Requests()
	if trs := reqs[1].ToolResults(); len(trs) != 1 || !strings.Contains(trs[0].Content, "- Name: Grace Hopper") ||
		!strings.Contains(trs[0].Content, "- Agreed to terms: true") || !strings.Contains(trs[0].Content, "- Favorite Integer: 7") {
		t.Fatalf("form result %+v", trs)
	}
	if trs := reqs[2].ToolResults(); len(trs) != 2 || !strings.Contains(trs[1].Content, "User completed the URL elicitation flow") {
		t.Fatalf("URL result %+v", trs)
	}
}
