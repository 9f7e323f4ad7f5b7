package server

import (
	"strings"
	"testing"
)

func TestClientWithNoWayToAnswerIsDeniedAtOnce(t *testing.T) {
	e := newEnv(t, "")
	c := e.start(t)
	// No agentls approvals, no window.showMessage, no code actions: this
	// client can never answer, so waiting out approval_timeout (5m) would
	// only hang the task.
	c.initialize(e.root, map[string]any{"window": map[string]any{"workDoneProgress": true}})
	scriptCommand(e.model, "approved-run")
	res, errc := c.runAsync(map[string]any{"prompt": "run it"})
	if r := c.await(res, errc); r.StopReason != "end_turn" {
		t.Fatalf("result = %+v", r)
	}
	if got := toolResult(t, e.model); strings.Contains(got.Content, "approved-run") || !strings.Contains(got.Content, "denied") {
		t.Errorf("tool result = %+v, want a denial", got)
	}
	if n := len(c.messages("textDocument/publishDiagnostics")); n != 0 {
		t.Errorf("%d approval diagnostics for a client without code actions", n)
	}
}
