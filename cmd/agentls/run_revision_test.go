package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestRunBothRevisions: one agentls run session drives real servers of
// both MCP revisions on both transports, through the same policy: the
// official TypeScript SDK v2 (2026-07-28) on stdio and Streamable HTTP,
// server-everything on the v1 SDK (2025-11-25) on stdio and Streamable
// HTTP. The allow-listed echo of each revision runs; the same tool not
// listed asks on each, and with no terminal to ask nobody is, so neither
// runs and the run says so.
func TestRunBothRevisions(t *testing.T) {
	node := testenv.Tool(t, "node")
	v2 := testenv.MCPv2Echo(t)
	v2HTTP := testenv.MCPv2EchoHTTP(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	everythingHTTP := testenv.EverythingHTTP(t, "streamableHttp")
	e := newRunEnv(t, "anthropic", `"modern__echo" = "allow"`+"\n"+`"modern_http__echo" = "allow"`+"\n"+`"legacy__echo" = "allow"`+"\n"+`"legacy_http__echo" = "allow"`)
	f, err := os.OpenFile(e.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n[mcp.servers.modern]\ncommand = %q\nargs = [%q, \"stdio\", %q]\n", node, v2, e.ws)
	fmt.Fprintf(f, "\n[mcp.servers.modern_http]\nurl = %q\n", v2HTTP.URL)
	fmt.Fprintf(f, "\n[mcp.servers.legacy]\ncommand = %q\nargs = [%q, \"stdio\", %q]\n", node, everything, e.ws)
	fmt.Fprintf(f, "\n[mcp.servers.legacy_http]\nurl = %q\n", everythingHTTP.URL)
	f.Close()
	e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{
		{ID: "m", Name: "modern__echo", Input: `{"message":"stdio 2026"}`},
		{ID: "mh", Name: "modern_http__echo", Input: `{"message":"http 2026"}`},
		{ID: "l", Name: "legacy__echo", Input: `{"message":"stdio 2025"}`},
		{ID: "lh", Name: "legacy_http__echo", Input: `{"message":"http 2025"}`},
		// Not allow-listed: these ask, on either revision.
		{ID: "ask_m", Name: "modern__region", Input: `{"region":"eu","text":"x"}`},
		{ID: "ask_l", Name: "legacy__get-sum", Input: `{"a":1,"b":2}`},
	}}, modeltest.Turn{Text: "done"})
	code, stdout, stderr := e.run(t, "echo on every server")
	if code != exitUnasked {
		t.Fatalf("exit %d, want %d (two cards nobody could answer)\nstdout: %s\nstderr: %s", code, exitUnasked, stdout, stderr)
	}
	reqs := e.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2; stderr: %s", len(reqs), stderr)
	}
	got := map[string]string{}
	for _, tr := range reqs[1].ToolResults() {
		got[tr.ToolUseID] = tr.Content
	}
	for id, want := range map[string]string{"m": "Echo: stdio 2026", "mh": "Echo: http 2026", "l": "Echo: stdio 2025", "lh": "Echo: http 2025"} {
		if !strings.Contains(got[id], want) {
			t.Errorf("%s = %q, want %q", id, got[id], want)
		}
	}
	for _, id := range []string{"ask_m", "ask_l"} {
		if got[id] != agent.NobodyAskedMessage {
			t.Errorf("%s = %q, want the card nobody could answer", id, got[id])
		}
	}
	// The same config's servers, as agentls mcp list --json sees them:
	// each on the revision it answered with.
	cmd := exec.Command(e.bin, "mcp", "list", "--json", "--config", e.config, "--workspace", e.ws)
	cmd.Env = append(mcpListEnv(t), "AGENTLS_TEST_KEY=test")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agentls mcp list --json: %v", err)
	}
	var list struct {
		Servers []struct{ Name, State, Transport, Revision string } `json:"servers"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	revs := map[string]string{}
	for _, s := range list.Servers {
		revs[s.Name] = s.State + " " + s.Transport + " " + s.Revision
	}
	for name, want := range map[string]string{"modern": "connected stdio 2026-07-28", "modern_http": "connected streamable-http 2026-07-28",
		"legacy": "connected stdio 2025-11-25", "legacy_http": "connected streamable-http 2025-11-25"} {
		if revs[name] != want {
			t.Errorf("%s: %q, want %q", name, revs[name], want)
		}
	}
	t.Logf("the servers of the run: %v", revs)
}
