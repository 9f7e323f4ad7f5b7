package server

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// TestSetModeRulesAndRevokeOverLSP: agent/setMode changes what agent/status
// says (per session, and for new sessions), a bad mode is InvalidParams;
// agent/rules lists the workspace's saved rules and agent/rules/revoke
// forgets one.
func TestSetModeRulesAndRevokeOverLSP(t *testing.T) {
	e := newEnv(t, "")
	store := trust.OpenStore(filepath.Join(e.state, "trust.json"))
	r, _ := trust.CommandRule([]string{"go", "test", "./..."}, false)
	if err := store.AddRule(e.root, r); err != nil {
		t.Fatal(err)
	}
	c := e.start(t)
	c.initialize(e.root, caps(false, false, false))
	var m wire.ModeResult
	c.mustCall("agent/setMode", map[string]any{"sessionId": "s1", "mode": "plan"}, &m)
	if m.Mode != wire.ModePlan || m.SessionID != "s1" {
		t.Fatalf("agent/setMode = %+v", m)
	}
	var st wire.StatusResult
	c.mustCall("agent/status", map[string]any{"sessionId": "s1"}, &st)
	if st.Mode != wire.ModePlan {
		t.Errorf("agent/status of s1 = %s, want plan", st.Mode)
	}
	c.mustCall("agent/status", map[string]any{}, &st)
	if st.Mode != wire.ModeAsk {
		t.Errorf("agent/status for new sessions = %s, want ask", st.Mode)
	}
	c.mustCall("agent/setMode", map[string]any{"mode": "auto-edit"}, &m)
	c.mustCall("agent/status", map[string]any{"sessionId": "s2"}, &st)
	if st.Mode != wire.ModeAutoEdit {
		t.Errorf("a new session's mode after setMode without a session = %s", st.Mode)
	}
	if err := c.call("agent/setMode", map[string]any{"mode": "yolo"}, &m); err == nil || !strings.Contains(err.Error(), "expected one of plan, ask, auto-edit, autopilot") {
		t.Errorf("agent/setMode yolo: %v", err)
	}
	var rules wire.RulesResult
	c.mustCall("agent/rules", map[string]any{}, &rules)
	if len(rules.Rules) != 1 || rules.Rules[0].ID != "command: go test ./*" || rules.Rules[0].Workspace != e.root {
		t.Fatalf("agent/rules = %+v", rules)
	}
	var rev wire.RevokeRuleResult
	c.mustCall("agent/rules/revoke", map[string]any{"id": "command: go test ./*"}, &rev)
	if len(rev.Revoked) != 1 {
		t.Fatalf("agent/rules/revoke = %+v", rev)
	}
	c.mustCall("agent/rules", map[string]any{}, &rules)
	if len(rules.Rules) != 0 {
		t.Errorf("after revoke: %+v", rules)
	}
	if err := c.call("agent/rules/revoke", map[string]any{"id": "command: go test ./*"}, &rev); err == nil {
		t.Error("revoking it again succeeded")
	}
}
