package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	tmux := testenv.Tool(t, "tmux")
	e := newRunEnv(t, "anthropic", "")
	withEverything(t, e)
	e.model.Script(elicitTurn("ev__trigger-elicitation-request", `{}`),
		elicitTurn("ev__trigger-url-elicitation", `{"url":"http://127.0.0.1:9/consent","message":"Approve the export"}`),
		modeltest.Turn{Text: "Answered."})
	exitFile := filepath.Join(e.state, "exit-code")
	script := filepath.Join(e.state, "run.sh")
	os.MkdirAll(e.state, 0o700)
	body := fmt.Sprintf("#!/bin/sh\ncd %q\nexport AGENTLS_CONFIG=%q XDG_STATE_HOME=%q AGENTLS_TEST_KEY=test\n%q run 'ask me'\necho $? > %q\nsleep 30\n",
		e.ws, e.config, e.state, e.bin, exitFile)
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	socket := "agentls-elicit-" + hex.EncodeToString(rnd[:])
	tm := func(args ...string) string {
		out, err := exec.Command(tmux, append([]string{"-L", socket}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	tm("-f", "/dev/null", "new-session", "-d", "-x", "220", "-y", "80", "-s", "run", script)
	t.Cleanup(func() {
		exec.Command(tmux, "-L", socket, "kill-server").Run()
		testenv.WaitNoProcesses(t, socket, 5*time.Second)
	})
	waitScreen := func(want string) string {
		t.Helper()
		screen := ""
		for deadline := time.Now().Add(60 * time.Second); !strings.Contains(screen, want); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q on the terminal:\n%s", want, screen)
			}
			screen = tm("capture-pane", "-p", "-S", "-200", "-t", "run")
		}
		return screen
	}
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
	var code []byte
	for deadline := time.Now().Add(60 * time.Second); len(code) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("agentls run did not finish:\n%s", tm("capture-pane", "-p", "-t", "run"))
		}
		code, _ = os.ReadFile(exitFile)
	}
	if strings.TrimSpace(string(code)) != "0" {
		t.Fatalf("exit code %s:\n%s", code, tm("capture-pane", "-p", "-t", "run"))
	}
	reqs := e.model.Requests()
	if trs := reqs[1].ToolResults(); len(trs) != 1 || !strings.Contains(trs[0].Content, "- Name: Grace Hopper") ||
		!strings.Contains(trs[0].Content, "- Agreed to terms: true") || !strings.Contains(trs[0].Content, "- Favorite Integer: 7") {
		t.Fatalf("form result %+v", trs)
	}
	if trs := reqs[2].ToolResults(); len(trs) != 2 || !strings.Contains(trs[1].Content, "User completed the URL elicitation flow") {
		t.Fatalf("URL result %+v", trs)
	}
}
