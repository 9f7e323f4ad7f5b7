package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProtocolDocNamesEveryACPMethod keeps docs/protocol.md's ACP section
// true: every method this front answers (its route tables, routes.go) or
// sends is named there.
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
	a := New(Options{})
	var methods []string
	for _, r := range append(a.requestRoutes(), a.notificationRoutes()...) {
		methods = append(methods, r.method)
	}
	methods = append(methods, sentMethods...)
	methods = append(methods, methodCancelRequest) // answered by the connection itself
	if len(methods) < 14 {
		t.Fatalf("read %d ACP methods from the route tables, want every one (14 or more)", len(methods))
	}
	for _, m := range methods {
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
