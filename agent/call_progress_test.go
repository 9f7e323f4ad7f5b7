package agent

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// TestProgressFloodIsCoalesced is a red-team finding: every
// notifications/progress of a call became a tool_call event (and an LSP
// $/progress report, an ACP tool_call_update), so a server sending them in
// a tight loop flooded the editor. The real faultserver's flood tool sends
// 20000 in a row: the call's running tool_calls with a message are now at
// most one per progressEvery of the call's measured duration (plus the
// first and the last), the last one shown is the server's last, and the
// final tool_call still comes after all of them.
func TestProgressFloodIsCoalesced(t *testing.T) {
	const n = 20000
	bin := testenv.GoBinary(t, "./internal/faultserver")
	f := newFixture(t, "anthropic", withServers(t, func(root string) []config.Server {
		return []config.Server{{Name: "x", Origin: config.User, Command: bin, Cwd: root}}
	}))
	f.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "fl", Name: "x__flood", Input: fmt.Sprintf(`{"n":%d}`, n)}}},
		modeltest.Turn{Text: "done"})
	ev := &events{}
	ap := approverFunc(func(context.Context, wire.Approval) (string, error) { return "allow_once", nil })
	var started, ended time.Time
	ev.on = func(e wire.Event) {
		if e.Type != "tool_call" || e.ToolCallID != "fl" {
			return
		}
		switch e.Status {
		case "running":
			if started.IsZero() {
				started = time.Now()
			}
		case "completed", "failed", "cancelled":
			ended = time.Now()
		}
	}
	if res := f.run(t, RunRequest{Prompt: "flood"}, TaskIO{Approver: ap, Events: ev}); res.StopReason != "end_turn" {
		t.Fatalf("result %+v", res)
	}
	if r := f.model.Requests()[1].ToolResults(); len(r) != 1 || r[0].IsError || r[0].Content != "flooded" {
		t.Fatalf("tool results %+v, want flooded", r)
	}
	var progress []wire.Event
	var last wire.Event
	for _, e := range ev.ofType("tool_call") {
		if e.ToolCallID != "fl" {
			continue
		}
		if last.Status == "completed" {
			t.Errorf("tool_call %+v after the call's final one", e)
		}
		last = e
		if e.Status == "running" && e.Message != "" {
			progress = append(progress, e)
		}
	}
	if last.Status != "completed" {
		t.Fatalf("the call's last tool_call is %+v, want completed", last)
	}
	took := ended.Sub(started)
	bound := int(took/progressEvery) + 2
	t.Logf("%d notifications in %s: %d progress tool_calls (bound %d)", n, took, len(progress), bound)
	if len(progress) > bound {
		t.Errorf("%d progress tool_calls for one call of %s, want at most %d (one per %s)", len(progress), took, bound, progressEvery)
	}
	want := fmt.Sprintf("%d/%d: step %d", n, n, n)
	if len(progress) == 0 || progress[len(progress)-1].Message != want {
		t.Errorf("last progress shown %+v, want %q", progress[len(progress)-1:], want)
	}
}
