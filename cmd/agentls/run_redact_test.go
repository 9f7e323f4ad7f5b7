package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestRunLogsAreRedacted: an MCP server (the real faultserver) logs a
// token during a call (notifications/message). agentls run writes the
// server's log line to its stderr, the log an editor keeps of an ACP
// agent too: the token is redacted there, as in events and transcripts.
func TestRunLogsAreRedacted(t *testing.T) {
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	e := newRunEnv(t, "anthropic", `"x__log" = "allow"`)
	bin := testenv.GoBinary(t, "./internal/faultserver")
	f, err := os.OpenFile(e.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n[mcp.servers.x]\ncommand = %q\nargs = [\"-roots\", \"-marker\", %q]\n", bin, e.ws) // -roots: MCP 2025-11-25, which still has logging
	f.Close()
	e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "l1", Name: "x__log", Input: fmt.Sprintf(`{"text":"using token %s"}`, token)}}},
		modeltest.Turn{Text: "logged it"})
	code, stdout, stderr := e.run(t, "log")
	if code != 0 || !strings.Contains(stdout, "logged it") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "using token") {
		t.Fatalf("the server's log line is not on stderr:\n%s", stderr)
	}
	if strings.Contains(stderr, token) {
		t.Errorf("the token reached stderr unredacted:\n%s", stderr)
	}
}
