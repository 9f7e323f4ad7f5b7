package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestServerNamesMustBePrintable: a server name is printed as is in many
// places (the CLI's "approved a different command line for 'NAME'" line,
// logs, the server list). A repo's name carrying a terminal escape could
// move the cursor and overwrite the launch card just shown with a fake
// command line; bidi overrides and zero-width characters disguise it.
func TestServerNamesMustBePrintable(t *testing.T) {
	for _, name := range []string{"x\\u001b[2A\\u001b[2Kcommand: npx ok", "a\\nb", "git\\u202ehub", "gi\\u200bthub", "x\\u007f"} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			write(t, WorkspacePath(root), "[mcp.servers.\""+name+"\"]\ncommand = \"true\"\n")
			c := Load("", []string{root})
			if len(c.MCP.Servers) != 1 {
				t.Fatalf("servers %v diagnostics %v", serverNames(c), c.Diagnostics)
			}
			s := c.MCP.Servers[0]
			if s.Err == "" || !strings.Contains(s.Err, "control or invisible") {
				t.Fatalf("server %q loaded without error (Err %q); want it listed as failed, never started", s.Name, s.Err)
			}
			for _, d := range c.Diagnostics {
				if strings.ContainsAny(d.String(), "\x1b\n\u202e\u200b\x7f") {
					t.Errorf("a diagnostic carries the raw character: %q", d.String())
				}
			}
		})
	}
	t.Run("unicode letters are fine", func(t *testing.T) {
		root := t.TempDir()
		write(t, filepath.Join(root, ".agentls", "config.toml"), "[mcp.servers.\"café\"]\ncommand = \"true\"\n")
		if c := Load("", []string{root}); len(c.MCP.Servers) != 1 || c.MCP.Servers[0].Err != "" {
			t.Fatalf("servers %+v diagnostics %v", c.MCP.Servers, c.Diagnostics)
		}
	})
}
