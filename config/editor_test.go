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

func TestAddEditorRemoteServers(t *testing.T) {
	cfg := &Config{}
	diags := AddEditorServers(cfg, "/ws", []EditorServer{
		{Name: "docs", URL: "http://127.0.0.1:9/mcp", Headers: [][2]string{{"Authorization", "Bearer ${GITHUB_TOKEN}"}, {"X-Team", "a"}}},
		{Name: "both", URL: "http://127.0.0.1:9/mcp", Command: "x"},
		{Name: "ftp", URL: "ftp://example.com/mcp"},
		{Name: "hdr", URL: "http://127.0.0.1:9/mcp", Headers: [][2]string{{"Mcp-Session-Id", "x"}, {"X-A", "a\r\nX-B: b"}}},
	})
	byName := map[string]Server{}
	for _, s := range cfg.MCP.Servers {
		byName[s.Name] = s
	}
	docs := byName["docs"]
	if docs.Origin != Editor || !docs.Remote() || docs.Cwd != "" || docs.WorkspaceRoot != "/ws" || docs.Err != "" {
		t.Errorf("a remote editor server is the Editor tier, remote, rooted at the session's cwd: %+v", docs)
	}
	got, err := docs.ExpandedHeaders(func(string) (string, bool) { return "the user's secret", true })
	if err != nil || got["Authorization"] != "Bearer ${GITHUB_TOKEN}" || got["X-Team"] != "a" {
		t.Errorf("an editor's header values are sent as the editor gave them, never expanded from agentls's environment: %v, %v", got, err)
	}
	for _, n := range []string{"both", "ftp", "hdr"} {
		if s, ok := byName[n]; !ok || s.Err == "" {
			t.Errorf("a broken remote editor server %q stays listed as failed (Err set): %+v", n, s)
		}
	}
	if len(diags) != 3 {
		t.Errorf("want 3 diagnostics, got %d: %v", len(diags), diags)
	}
	if s := byName["hdr"].Err; !strings.Contains(s, "Mcp-Session-Id") || !strings.Contains(s, "line break") {
		t.Errorf("the error names each bad header: %s", s)
	}
}
