package acp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestMCPCommandShowsTheRevision: the /mcp command lists each server with
// the MCP revision it speaks: a server on the official TypeScript SDK v2
// (2026-07-28) and server-everything on the v1 SDK (2025-11-25).
func TestMCPCommandShowsTheRevision(t *testing.T) {
	node := testenv.Tool(t, "node")
	v2 := testenv.MCPv2Echo(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	w := newWorld(t, fmt.Sprintf("[mcp.servers.modern]\ncommand = %q\nargs = [%q, \"stdio\"]\n\n[mcp.servers.legacy]\ncommand = %q\nargs = [\"stdio\"]\n", node, v2, everything))
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		// Each server's prompt is offered once it connected.
		{Op: "waitCommand", Text: "modern.hello"},
		{Op: "waitCommand", Text: "legacy.simple-prompt"},
		{Op: "prompt", Text: "/mcp"},
	}})
	for i, s := range out.Steps {
		if s.Error != nil {
			t.Fatalf("step %d (%s): %+v", i, s.Op, s.Error)
		}
	}
	for _, want := range []string{"- modern (user, connected, MCP 2026-07-28 over stdio)", "- legacy (user, connected, MCP 2025-11-25 over stdio)"} {
		if !strings.Contains(out.text(), want) {
			t.Errorf("/mcp lacks %q:\n%s", want, out.text())
		}
	}
}
