package agent

import (
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestToolCallsOfOneTurnRunOneAfterAnother: tools run sequentially, in the
// model's order; every event of one call (its cards, its result) comes
// before the first event of the next.
func TestToolCallsOfOneTurnRunOneAfterAnother(t *testing.T) {
	f := newFixture(t, "openai", nil)
	f.ws.applies = true
	f.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{
			{ID: "w1", Name: "write_file", Input: `{"path":"a.txt","content":"1"}`},
			{ID: "w2", Name: "write_file", Input: `{"path":"b.txt","content":"2"}`},
			{ID: "w3", Name: "list_directory", Input: `{"path":"."}`},
		}},
		modeltest.Turn{Text: "done"},
	)
	ev := &events{}
	ap := &answer{opt: "allow_once"}
	if res := f.run(t, RunRequest{Prompt: "write two"}, TaskIO{Approver: ap, Events: ev}); res.StopReason != "end_turn" {
		t.Fatalf("result = %+v", res)
	}
	var order []string
	for _, e := range ev.list() {
		if e.ToolCallID == "" {
			continue
		}
		if n := len(order); n == 0 || order[n-1] != e.ToolCallID {
			order = append(order, e.ToolCallID)
		}
	}
	if got := len(order); got != 3 || order[0] != "w1" || order[1] != "w2" || order[2] != "w3" {
		t.Errorf("calls' events interleave or run out of order: %v, want [w1 w2 w3]", order)
	}
	if asked := ap.asked(); len(asked) != 2 {
		t.Errorf("%d approval cards, want one per write", len(asked))
	}
	trs := f.model.Requests()[1].ToolResults()
	if len(trs) != 3 || trs[0].ToolUseID != "w1" || trs[1].ToolUseID != "w2" || trs[2].ToolUseID != "w3" {
		t.Errorf("tool results %+v, want w1, w2, w3 in order", trs)
	}
}
