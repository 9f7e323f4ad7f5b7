package server

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// serverFields and toolFields are docs/protocol.md's Server shape: every row
// has every one of them, empty or not.
var (
	serverFields = []string{"name", "origin", "state", "command", "envKeys", "cwd", "sandbox", "error", "stderrTail", "schemaTokens", "tools"}
	toolFields   = []string{"name", "serverTool", "description", "policy", "annotations", "schemaTokens"}
)

func TestServerRowsHaveTheProtocolShape(t *testing.T) {
	files := filepath.Join(t.TempDir(), "fs-shape-marker")
	e := newEnv(t, fsServer(t, "fs", files)+"\n[mcp.servers.broken]\ncommand = \"agentls-no-such-program\"\n")
	writeFile(t, filepath.Join(e.root, ".agentls", "config.toml"), "[mcp.servers.repo]\ncommand = \"sh\"\nargs = [\"-c\", \"exit 0\"]\n")
	c := e.start(t)
	c.setAnswer(c.never) // the repo's launch card waits
	c.initialize(e.root, caps(true, false, false))
	c.waitState("fs", "connected")
	c.waitState("broken", "failed")
	c.waitState("repo", "needs_approval")

	var res struct{ Servers []map[string]json.RawMessage }
	c.mustCall("agent/mcp/servers", map[string]any{}, &res)
	if len(res.Servers) != 3 {
		t.Fatalf("%d rows, want one per configured server (3)", len(res.Servers))
	}
	for _, row := range res.Servers {
		name := string(row["name"])
		for _, k := range serverFields {
			v, ok := row[k]
			if !ok {
				t.Errorf("server %s lacks %q", name, k)
				continue
			}
			if string(v) == "null" {
				t.Errorf("server %s: %q is null, want a value of its type", name, k)
			}
		}
		wantOrigin := map[string]string{`"fs"`: `"user"`, `"broken"`: `"user"`, `"repo"`: `"workspace"`}[name]
		if string(row["origin"]) != wantOrigin {
			t.Errorf("server %s origin %s, want %s", name, row["origin"], wantOrigin)
		}
		var tools []map[string]json.RawMessage
		_ = json.Unmarshal(row["tools"], &tools)
		if name == `"fs"` && len(tools) == 0 {
			t.Errorf("the connected fs server lists no tools")
		}
		for _, tool := range tools {
			for _, k := range toolFields {
				if v, ok := tool[k]; !ok || string(v) == "null" {
					t.Errorf("tool %s of %s: %q = %s, want a value", tool["name"], name, k, v)
				}
			}
			var policy string
			_ = json.Unmarshal(tool["policy"], &policy)
			if policy != "allow" && policy != "ask" && policy != "deny" {
				t.Errorf("tool %s policy %q, want allow, ask or deny", tool["name"], policy)
			}
			if a := tool["annotations"]; len(a) == 0 || a[0] != '{' {
				t.Errorf("tool %s annotations %s, want an object", tool["name"], tool["annotations"])
			}
		}
	}
}

// TestServerRowsFillEmptyFields checks that a bare row (no command, env,
// error or annotations) still has every field of Server, none null: the
// agent's rows are wire.Server, which the handler sends as they are.
func TestServerRowsFillEmptyFields(t *testing.T) {
	rows := agent.ServerRows([]mcp.ServerInfo{{Name: "bare", Tools: []mcp.Tool{{Name: "bare__t"}}}}, &trust.Policy{})
	b, err := json.Marshal(wire.ServersResult{Servers: rows})
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Servers []map[string]json.RawMessage }
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	got := res.Servers
	for _, k := range serverFields {
		if v, ok := got[0][k]; !ok || string(v) == "null" {
			t.Errorf("a bare row: %q = %s, want a value of its type", k, v)
		}
	}
	var tools []map[string]json.RawMessage
	_ = json.Unmarshal(got[0]["tools"], &tools)
	if string(tools[0]["annotations"]) != "{}" {
		t.Errorf("a tool without annotations: %s, want {}", tools[0]["annotations"])
	}
}
