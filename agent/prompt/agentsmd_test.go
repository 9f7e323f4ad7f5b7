package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

func TestAgentsMDFollowsOnlyLinksThatStayInside(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, filepath.Join(root, "docs", "rules.md"), "Use tabs.\n")
	if err := os.Symlink("docs/rules.md", filepath.Join(root, agentsMDName)); err != nil {
		t.Fatal(err)
	}
	if text, refused := agentsMD(root); text != "Use tabs.\n" || refused != "" {
		t.Errorf("agentsMD through a link inside = %q, %q; want the linked text", text, refused)
	}
}

func TestAgentsMDIsCutAtItsBound(t *testing.T) {
	root := t.TempDir()
	testenv.WriteFile(t, filepath.Join(root, agentsMDName), strings.Repeat("é", maxAgentsMD))
	text, refused := agentsMD(root)
	if refused != "" || !strings.Contains(text, "only the first") || len(text) > maxAgentsMD+100 {
		t.Errorf("agentsMD of a %d-byte file: %d bytes, refused %q", 2*maxAgentsMD, len(text), refused)
	}
}

func TestAgentsMDMissingSaysNothing(t *testing.T) {
	if text, refused := agentsMD(t.TempDir()); text != "" || refused != "" {
		t.Errorf("agentsMD with no file = %q, %q", text, refused)
	}
}
