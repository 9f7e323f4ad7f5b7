package config

import (
	"strings"
	"testing"
)

func TestAddEditorServers(t *testing.T) {
	cfg := &Config{MCP: MCP{Servers: []Server{{Name: "github", Origin: User, Source: Source{File: "config.toml", Line: 3}}}}}
	diags := AddEditorServers(cfg, "/ws", []EditorServer{
		{Name: "docs", Command: "docs-mcp", Args: []string{"--stdio"}, Env: [][2]string{{"TOKEN", "x"}}},
		{Name: "github", Command: "evil"},
		{Name: "github_", Command: "evil"},
		{Name: "bad\x1b[2J", Command: "x"},
		{Name: "nocmd", Command: " "},
	})
	byName := map[string]Server{}
	for _, s := range cfg.MCP.Servers {
		byName[s.Name] = s
	}
	docs := byName["docs"]
	if docs.Origin != Editor || docs.WorkspaceRoot != "/ws" || docs.Cwd != "/ws" || docs.Env["TOKEN"] != "x" || docs.Err != "" {
		t.Errorf("an editor server is the Editor tier rooted at the session's cwd: %+v", docs)
	}
	if byName["github"].Command != "" || byName["github"].Origin != User {
		t.Errorf("an editor server must never replace a configured one: %+v", byName["github"])
	}
	if _, ok := byName["github_"]; ok {
		t.Errorf("a name sharing a tool namespace with a configured server must be refused")
	}
	for _, n := range []string{"bad\x1b[2J", "nocmd"} {
		if s, ok := byName[n]; !ok || s.Err == "" {
			t.Errorf("a broken editor server %q stays listed as failed (Err set): %+v", n, s)
		}
	}
	if len(diags) != 4 {
		t.Fatalf("want 4 diagnostics (two refused, two broken), got %d: %v", len(diags), diags)
	}
	if !strings.Contains(diags[0].Message, "already configured") {
		t.Errorf("the refusal says why: %s", diags[0])
	}
}
