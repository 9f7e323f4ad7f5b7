//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A repository controls what .agentls/config.toml is. These must each end in
// one diagnostic, never a hang (FIFO) or an endless read (/dev/zero).
func TestLoadRefusesSpecialWorkspaceFiles(t *testing.T) {
	tests := []struct {
		name  string
		make  func(t *testing.T, path string)
		wants string
	}{
		{"symlink to /dev/zero is refused", func(t *testing.T, p string) {
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}, "outside the workspace"},
		{"FIFO is refused without blocking", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, "not a regular file"},
		{"directory is refused", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"huge file is refused", func(t *testing.T, p string) {
			big := "# " + strings.Repeat("x", maxConfigBytes) + "\n"
			if err := os.WriteFile(p, []byte(big), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, ".agentls"), 0o755); err != nil {
				t.Fatal(err)
			}
			tc.make(t, WorkspacePath(root))
			c := Load("", []string{root})
			if len(c.Diagnostics) != 1 || c.Diagnostics[0].Severity != SeverityError ||
				!strings.Contains(c.Diagnostics[0].Message, tc.wants) || c.Diagnostics[0].Source.File != WorkspacePath(root) {
				t.Fatalf("diagnostics = %v; want one error naming the file and saying %q", c.Diagnostics, tc.wants)
			}
			if len(c.WorkspaceFiles) != 0 || len(c.MCP.Servers) != 0 {
				t.Errorf("nothing may be read from it: %v %v", c.WorkspaceFiles, c.MCP.Servers)
			}
		})
	}
}
