package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// withBarrierServer runs the fault server "b" with its barrier tool, its
// calls allowed by policy unless ask names a tool that must ask.
func withBarrierServer(t *testing.T, ask string) func(*Options) {
	bin := testenv.GoBinary(t, "./internal/faultserver")
	rules := []config.PolicyRule{allowRule("b__*", "allow")}
	if ask != "" {
		rules = append(rules, allowRule(ask, "ask"))
	}
	return withServers(t, func(root string) []config.Server {
		return []config.Server{{Name: "b", Origin: config.User, Command: bin, Cwd: root, Args: []string{"-barrier", "-marker", root}}}
	}, rules...)
}

func barrierCall(id string, n int) modeltest.ToolCall {
	return modeltest.ToolCall{ID: id, Name: "b__barrier", Input: fmt.Sprintf(`{"n":%d,"timeoutMs":20000}`, n)}
}

// Four calls that need no approval, in one response, are in the server at
// the same time: the barrier releases only when all four are inside, so a
// loop calling one at a time would leave the first waiting alone. Results
// go back in the order of the calls.
func TestCallsThatNeedNoApprovalRunInParallel(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			f := newFixture(t, format, withBarrierServer(t, ""))
			calls := []modeltest.ToolCall{barrierCall("c1", 4), barrierCall("c2", 4), barrierCall("c3", 4), barrierCall("c4", 4)}
			f.model.Script(modeltest.Turn{ToolCalls: calls}, modeltest.Turn{Text: "all met"})
			res := f.run(t, RunRequest{Prompt: "meet"}, TaskIO{})
			if res.StopReason != "end_turn" {
				t.Fatalf("result %+v", res)
			}
			results := f.model.Requests()[1].ToolResults()
			if len(results) != 4 {
				t.Fatalf("%d results, want 4", len(results))
			}
			for i, r := range results {
				want := fmt.Sprintf("c%d", i+1)
				if r.IsError || !strings.Contains(r.Content, "met 4") {
					t.Errorf("result %d = %+v, want the barrier met by all four", i, r)
				}
				if r.ToolUseID != want {
					t.Errorf("result %d is for %s, want %s (results in call order)", i, r.ToolUseID, want)
				}
			}
		})
	}
}

// A call that asks runs alone, and approvals are asked one at a time: two
// asking calls between free ones are asked in order, never at once.
func TestCallsThatAskRunAloneInOrder(t *testing.T) {
	f := newFixture(t, "anthropic", withBarrierServer(t, "b__echo"))
	var inFlight, most int
	ap := approverFunc(func(_ context.Context, a wire.Approval) (string, error) {
		inFlight++
		most = max(most, inFlight)
		defer func() { inFlight-- }()
		return "allow_once", nil
	})
	calls := []modeltest.ToolCall{
		barrierCall("c1", 2), barrierCall("c2", 2),
		{ID: "c3", Name: "b__echo", Input: `{"text":"one"}`},
		{ID: "c4", Name: "b__echo", Input: `{"text":"two"}`},
		// Alone after the asking calls, a barrier of 1 meets itself.
		barrierCall("c5", 1),
	}
	f.model.Script(modeltest.Turn{ToolCalls: calls}, modeltest.Turn{Text: "done"})
	ev := &events{}
	if res := f.run(t, RunRequest{Prompt: "go"}, TaskIO{Approver: ap, Events: ev}); res.StopReason != "end_turn" {
		t.Fatalf("result %+v", res)
	}
	results := f.model.Requests()[1].ToolResults()
	wantText := []string{"met 2", "met 2", "one", "two", "met 1"}
	for i, r := range results {
		if r.IsError || !strings.Contains(r.Content, wantText[i]) {
			t.Errorf("result %d = %+v, want %q", i, r, wantText[i])
		}
	}
	if most != 1 {
		t.Errorf("%d approvals were asked at once, want one at a time", most)
	}
	var asked []string
	for _, e := range ev.ofType("approval") {
		if e.State == "waiting" {
			asked = append(asked, e.ApprovalID)
		}
	}
	if len(asked) != 2 {
		t.Errorf("asked %d approvals, want 2 (the echo calls)", len(asked))
	}
}
