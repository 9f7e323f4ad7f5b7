package server

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

// TestLSPStopReasonsReachTheClient: agent/run's result and the done event
// say max_tokens and refusal, with why, through a real LSP client.
func TestLSPStopReasonsReachTheClient(t *testing.T) {
	e := newEnv(t, "")
	e.model.Script(
		modeltest.Turn{Text: "Half an", StopReason: "max_tokens"},
		modeltest.Turn{Refusal: "I can't help with that."},
	)
	got := runTurns(t, e, "write at length", "do the forbidden thing")
	want := []struct {
		stop      wire.StopReason
		text, why string
	}{
		{wire.StopMaxTokens, "Half an", "cut at max_tokens"},
		{wire.StopRefusal, "I can't help with that.", "declined to answer"},
	}
	var done []wire.Event
	for _, ev := range got.Events {
		if ev.Type == wire.EventDone {
			done = append(done, ev)
		}
	}
	if len(done) != 2 {
		t.Fatalf("%d done events, want 2: %+v", len(done), got.Events)
	}
	for i, w := range want {
		r := got.Results[i]
		if r.StopReason != w.stop || r.Text != w.text || !strings.Contains(r.Error, w.why) {
			t.Errorf("turn %d result %+v, want %s, %q, an error saying %q", i+1, r, w.stop, w.text, w.why)
		}
		if d := done[i]; d.StopReason != w.stop || !strings.Contains(d.Message, w.why) {
			t.Errorf("turn %d done event %+v", i+1, d)
		}
	}
}
