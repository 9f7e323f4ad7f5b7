package server

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/model/providers"
	"github.com/agentls/agentls/wire"
)

// TestSetModelAndModeSurviveARestartOverLSP, with two `agentls serve`
// processes: in the first, a turn on the default profile (chat
// completions), then agent/setMode plan and agent/setModel claude for its
// session (agent/status lists the profiles; an unknown one is
// InvalidParams); agentls exits. The second, asked about the session,
// says plan on claude, and its next turn goes to the Messages wire in plan
// mode with the first turn's history; its done event carries the mode,
// the profile and the model.
func TestSetModelAndModeSurviveARestartOverLSP(t *testing.T) {
	e := newEnv(t, "")
	cfg, err := os.ReadFile(e.config)
	if err != nil {
		t.Fatal(err)
	}
	cfg = fmt.Appendf(cfg, "\n[model.profiles.claude]\nprovider = \"anthropic\"\nname = \"fake-claude\"\ncontext_window = 200000\nbase_url = %q\n", e.model.URL())
	if err := os.WriteFile(e.config, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	e.model.Script(modeltest.Turn{Text: "first answer"}, modeltest.Turn{Text: "planned on claude"})

	c, _ := startServe(t, e)
	c.initialize(e.root, caps(false, true, false))
	var first runResult
	c.mustCall("agent/run", map[string]any{"prompt": "one"}, &first)
	if first.StopReason != "end_turn" || first.SessionID == "" {
		t.Fatalf("first turn: %+v", first)
	}
	sid := first.SessionID
	var st wire.StatusResult
	c.mustCall("agent/status", map[string]any{"sessionId": sid}, &st)
	if st.Model.Profile != "default" || len(st.Profiles) != 2 || st.Profiles[1].Profile != "claude" || st.Profiles[1].Provider != "anthropic" || st.Profiles[1].Name != "fake-claude" {
		t.Fatalf("agent/status = %+v", st)
	}
	var mr wire.ModelResult
	c.mustCall("agent/setModel", map[string]any{"sessionId": sid, "profile": "claude"}, &mr)
	if mr.Model.Profile != "claude" || mr.Model.Name != "fake-claude" || mr.SessionID != sid {
		t.Errorf("agent/setModel = %+v", mr)
	}
	if err := c.call("agent/setModel", map[string]any{"sessionId": sid, "profile": "collector"}, &mr); err == nil || !strings.Contains(err.Error(), `unknown model profile "collector"`) {
		t.Errorf("an unknown profile: %v", err)
	}
	if err := c.call("agent/setModel", map[string]any{"sessionId": sid}, &mr); err == nil || !strings.Contains(err.Error(), "profile is missing") {
		t.Errorf("no profile: %v", err)
	}
	var m wire.ModeResult
	c.mustCall("agent/setMode", map[string]any{"sessionId": sid, "mode": "plan"}, &m)
	c.mustCall("shutdown", nil, nil)
	c.notify("exit", nil)
	select {
	case code := <-c.code:
		c.code <- code // for the harness's own check at cleanup
		if code != 0 {
			t.Fatalf("the first agentls exited %d", code)
		}
	case <-time.After(waitLimit):
		t.Fatal("the first agentls did not exit")
	}

	d, _ := startServe(t, e)
	d.initialize(e.root, caps(false, true, false))
	d.mustCall("agent/status", map[string]any{"sessionId": sid}, &st)
	if st.Mode != wire.ModePlan || st.Model.Profile != "claude" {
		t.Fatalf("after a restart agent/status of the session = %+v; want plan on claude", st)
	}
	var second runResult
	d.mustCall("agent/run", map[string]any{"prompt": "two", "sessionId": sid}, &second)
	if second.StopReason != "end_turn" {
		t.Fatalf("second turn: %+v", second)
	}
	reqs := e.model.ModelRequests("")
	if len(reqs) != 2 || reqs[0].Format != providers.ChatCompletions || reqs[1].Format != providers.Messages || reqs[1].Model() != "fake-claude" {
		t.Fatalf("%d requests; want one on chat completions, then one on the Messages wire for fake-claude", len(reqs))
	}
	if !strings.Contains(reqs[1].System(), "plan mode") || len(reqs[1].AssistantTexts()) != 1 {
		t.Errorf("the resumed turn: plan mode told %v, history %q", strings.Contains(reqs[1].System(), "plan mode"), reqs[1].AssistantTexts())
	}
	done := d.waitFor("the done event", func(m message) bool {
		return m.Method == "agent/event" && strings.Contains(string(m.Params), `"type":"done"`)
	})
	var ev wire.DoneEvent
	if err := json.Unmarshal(done.Params, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Mode != wire.ModePlan || ev.Profile != "claude" || ev.Model != "fake-claude" {
		t.Errorf("done event %s; want mode plan, profile claude, model fake-claude", done.Params)
	}
}
