package acp

import (
	"reflect"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

func TestPlanOf(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []planEntry
	}{
		{"no list, no plan", "I will read the file.", nil},
		{"a plain bullet list is no plan", "- read\n- write\n", nil},
		{"each mark its status", "Plan:\n- [ ] read\n* [~] write the test\n+ [x] done\n", []planEntry{
			{"read", "medium", "pending"}, {"write the test", "medium", "in_progress"}, {"done", "medium", "completed"}}},
		{"the last list is the plan", "- [ ] old\n\nNow:\n- [x] old\n- [ ] new\n", []planEntry{
			{"old", "medium", "completed"}, {"new", "medium", "pending"}}},
		{"an empty step is no step", "- [ ] \n", nil},
	} {
		if got := planOf(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: planOf(%q) = %+v, want %+v", c.name, c.text, got, c.want)
		}
	}
}

// TestPlanUpdatesFollowTheAnswer: a task list in the model's answer is sent
// as ACP plan updates through the official client library (its schema
// check sees each): a list once it is whole (never its first steps alone),
// the list again when a later answer of the turn changes it.
func TestPlanUpdatesFollowTheAnswer(t *testing.T) {
	w := newWorld(t, "")
	w.model.Script(
		modeltest.Turn{Deltas: []string{"Plan:\n- [ ] read a", ".txt\n- [ ] summarize it\n"},
			ToolCalls: []modeltest.ToolCall{{ID: "r1", Name: "list_directory", Input: `{"path":"."}`}}},
		modeltest.Turn{Text: "Read it.\n- [x] read a.txt\n- [~] summarize it"},
	)
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root}, {Op: "prompt", Text: "summarize a.txt"}}})
	var plans [][]planEntry
	for _, u := range out.Updates {
		if u.Update.SessionUpdate == updatePlan {
			plans = append(plans, u.Update.Entries)
		}
	}
	want := [][]planEntry{
		{{"read a.txt", "medium", "pending"}, {"summarize it", "medium", "pending"}},
		{{"read a.txt", "medium", "completed"}, {"summarize it", "medium", "in_progress"}},
	}
	if !reflect.DeepEqual(plans, want) {
		t.Errorf("plan updates = %+v, want %+v", plans, want)
	}
	if out.stopReason(2) != StopEndTurn {
		t.Errorf("turn: %s", out.Steps[2].Result)
	}
}
