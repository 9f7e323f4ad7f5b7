package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfineRefusesDanglingSymlinks: a repo can commit a link whose target
// outside the workspace does not exist yet (../../.ssh/authorized_keys).
// It resolves to nothing, so it looked like a new file inside; the card
// showed a workspace path while an editor writing the buffer follows the
// link and creates the file outside.
func TestConfineRefusesDanglingSymlinks(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	for link, target := range map[string]string{
		"notes.md": filepath.Join(outside, "authorized_keys"),
		"dir":      filepath.Join(outside, "newdir"),
		"rel.md":   "../../../../../../../../tmp/agentls-dangling-" + filepath.Base(outside),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"notes.md", "dir/x.md", "rel.md", filepath.Join(root, "notes.md")} {
		if got, err := confine([]string{root}, p); err == nil || !strings.Contains(err.Error(), "symlink") {
			t.Errorf("confine(%q) = %+v, %v; want refused as a dangling symlink", p, got, err)
		}
	}
	if _, err := confine([]string{root}, "new/file.md"); err != nil {
		t.Errorf("a plain new file inside was refused: %v", err)
	}
}
