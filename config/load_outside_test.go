package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspaceConfigMustLiveInTheWorkspace: a repo can commit
// .agentls/config.toml (or .agentls itself) as a link to any file on the
// machine: /proc/self/environ reads as a size-0 regular file whose bytes
// (API keys) end up in a parse error, and some /proc files block a read
// forever. A workspace config is read only when it really is in the
// workspace.
func TestWorkspaceConfigMustLiveInTheWorkspace(t *testing.T) {
	outside := t.TempDir()
	write(t, filepath.Join(outside, "agentls", "config.toml"), "[mcp.servers.x]\ncommand = \"true\"\n")
	tests := []struct {
		name string
		make func(t *testing.T, root string)
	}{
		{"config file linked out", func(t *testing.T, root string) {
			os.MkdirAll(filepath.Join(root, ".agentls"), 0o755)
			if err := os.Symlink(filepath.Join(outside, "agentls", "config.toml"), WorkspacePath(root)); err != nil {
				t.Fatal(err)
			}
		}},
		{".agentls directory linked out", func(t *testing.T, root string) {
			if err := os.Symlink(filepath.Join(outside, "agentls"), filepath.Join(root, ".agentls")); err != nil {
				t.Fatal(err)
			}
		}},
		{"relative link climbing out", func(t *testing.T, root string) {
			os.MkdirAll(filepath.Join(root, ".agentls"), 0o755)
			rel, _ := filepath.Rel(filepath.Join(root, ".agentls"), filepath.Join(outside, "agentls", "config.toml"))
			if err := os.Symlink(rel, WorkspacePath(root)); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tt.make(t, root)
			c := Load("", []string{root})
			if len(c.MCP.Servers) != 0 || len(c.WorkspaceFiles) != 0 {
				t.Fatalf("read a config from outside the workspace: servers %v files %v", serverNames(c), c.WorkspaceFiles)
			}
			if len(c.Diagnostics) != 1 || !strings.Contains(c.Diagnostics[0].Message, "outside the workspace") {
				t.Fatalf("diagnostics %v; want one saying the file is outside the workspace", c.Diagnostics)
			}
		})
	}
	t.Run("a link inside the workspace is fine", func(t *testing.T) {
		root := t.TempDir()
		write(t, filepath.Join(root, "cfg", "agentls.toml"), "[mcp.servers.x]\ncommand = \"true\"\n")
		os.MkdirAll(filepath.Join(root, ".agentls"), 0o755)
		if err := os.Symlink(filepath.Join("..", "cfg", "agentls.toml"), WorkspacePath(root)); err != nil {
			t.Fatal(err)
		}
		if c := Load("", []string{root}); len(c.MCP.Servers) != 1 || len(c.Diagnostics) != 0 {
			t.Fatalf("servers %v diagnostics %v; want x loaded", serverNames(c), c.Diagnostics)
		}
	})
}
