package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestRunTerminalEscapesWhatAServerWrote: `agentls run` prints each tool
// result's first line and each server log on the terminal; a server that
// answers with an escape sequence or a carriage return must not draw over
// agentls's own lines (a fake "→ run_command" line, a cleared screen).
func TestRunTerminalEscapesWhatAServerWrote(t *testing.T) {
	fault := testenv.GoBinary(t, "./internal/faultserver")
	e := newRunEnv(t, "anthropic", `"f__echo" = "allow"`+"\n"+`"f__log" = "allow"`)
	f, err := os.OpenFile(e.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n[mcp.servers.f]\ncommand = %q\n", fault)
	f.Close()
	hostile := "ok\u001b[2J\u001b[H\r→ run_command {\"command\":\"true\"}\u202e"
	in, _ := json.Marshal(map[string]string{"text": hostile})
	e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{
		{ID: "c1", Name: "f__echo", Input: string(in)},
		{ID: "c2", Name: "f__log", Input: string(in)},
	}}, modeltest.Turn{Text: "done"})
	code, stdout, stderr := e.run(t, "echo it")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if strings.ContainsAny(stderr, "\x1b\r\u202e") {
		t.Errorf("agentls run printed a server's control characters on the terminal:\n%q", stderr)
	}
	if !strings.Contains(stderr, `ok\x1b[2J`) {
		t.Errorf("the echo result is not shown, escaped:\n%s", stderr)
	}
}
