package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProtocolDocNamesEveryACPMethod keeps docs/protocol.md's ACP section
// true: every method this front answers or calls is named there.
func TestProtocolDocNamesEveryACPMethod(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "protocol.md"))
	if err != nil {
		t.Fatalf("reading docs/protocol.md: %v", err)
	}
	doc := string(b)
	i := strings.Index(doc, "`agentls acp`")
	if i < 0 {
		t.Fatal("docs/protocol.md has no section on `agentls acp`")
	}
	doc = doc[i:]
	for _, m := range []string{methodInitialize, methodAuthenticate, methodSessionNew, methodSessionLoad,
		methodSessionList, methodSessionResume, methodSessionPrompt, methodSessionCancel, methodSessionUpdate,
		methodRequestPermission, methodReadTextFile, methodWriteTextFile, methodCancelRequest, methodCreateElicitation} {
		if !strings.Contains(doc, "`"+m+"`") {
			t.Errorf("docs/protocol.md's ACP section does not name %q", m)
		}
	}
	for _, c := range commands {
		if !strings.Contains(doc, "`/"+c.name+"`") {
			t.Errorf("docs/protocol.md's ACP section does not name the slash command /%s", c.name)
		}
	}
}
