package agent

import (
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// agent/tasks reports a running task's usage so far, cache reads included.
func TestTasksReportUsageSoFar(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	f.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{Name: "list_directory", Input: `{"path":"."}`}}},
		modeltest.Turn{Text: "thinking", Hang: true})
	task := f.core.Start(RunRequest{Prompt: "look"}, TaskIO{})
	deadline := time.Now().Add(30 * time.Second)
	for {
		ts := f.core.Tasks()
		if len(ts) == 1 && ts[0].Usage.InputTokens > 0 {
			if ts[0].Usage.OutputTokens == 0 {
				t.Errorf("usage so far %+v, want output tokens too", ts[0].Usage)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tasks never reported usage: %+v", ts)
		}
		time.Sleep(10 * time.Millisecond)
	}
	f.core.Cancel(task.ID)
	<-task.Done()
}
