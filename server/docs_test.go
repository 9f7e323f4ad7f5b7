package server

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestProtocolDocNamesEveryMethod keeps docs/protocol.md true: every
// method the server answers, every notification it handles or sends and
// every command it lists must be named there (in backquotes), so a method
// added without documentation fails here.
func TestProtocolDocNamesEveryMethod(t *testing.T) {
	doc := readDoc(t, "protocol.md")
	s := &Server{}
	var names []string
	for m := range s.requestHandlers() {
		names = append(names, m)
	}
	for m := range s.notificationHandlers() {
		names = append(names, m)
	}
	names = append(names, commandNames...)
	// What the server sends the client.
	names = append(names, "agent/event", "agent/requestApproval", "window/showMessageRequest",
		"window/showMessage", "window/logMessage", "$/progress", "window/workDoneProgress/create",
		"workspace/applyEdit", "window/showDocument", "textDocument/publishDiagnostics")
	sort.Strings(names)
	for _, m := range names {
		if !strings.Contains(doc, "`"+m+"`") && !strings.Contains(doc, "`"+m+" ") {
			t.Errorf("docs/protocol.md does not name %q: document it (params, result, behaviour)", m)
		}
	}
}

// readDoc reads a file of the repository's docs/ folder.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", name))
	if err != nil {
		t.Fatalf("reading docs/%s: %v", name, err)
	}
	return string(b)
}
