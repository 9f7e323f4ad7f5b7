package acp

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/jsonrpc"
)

// TestRoutesAreTheDeclaredOnes holds the route tables: no method twice, and
// an unknown method's error names every method a client may send.
func TestRoutesAreTheDeclaredOnes(t *testing.T) {
	a := New(Options{})
	seen := map[string]bool{}
	for _, r := range append(a.requestRoutes(), a.notificationRoutes()...) {
		if seen[r.method] {
			t.Errorf("%s is routed twice", r.method)
		}
		seen[r.method] = true
	}
	_, err := a.handleRequest(context.Background(), "session/frob", nil)
	e, ok := err.(*jsonrpc.Error)
	if !ok || e.Code != jsonrpc.MethodNotFound {
		t.Fatalf("session/frob: %v, want MethodNotFound", err)
	}
	for _, m := range []string{methodInitialize, methodSessionNew, methodSessionLoad, methodSessionResume,
		methodSessionList, methodSessionPrompt, methodSessionCancel} {
		if !strings.Contains(e.Message, m) {
			t.Errorf("MethodNotFound %q does not name %s", e.Message, m)
		}
	}
}
