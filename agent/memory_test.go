package agent

import (
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

// What the core holds for a session lasts while a task uses it: after a
// burst of tasks in sessions of their own, no session lock is left, and
// the index's cache keeps at most recentSessions entries.
func TestIdleSessionsAreReleased(t *testing.T) {
	f := newFixture(t, "openai", nil)
	f.model.Answer(func(r modeltest.Request) (modeltest.Turn, bool) {
		if strings.Contains(r.LastUserText(), "hang") {
			return modeltest.Turn{Deltas: []string{"Slowly, ", "never"}, Hang: true}, true
		}
		return modeltest.Turn{Text: "ok"}, true
	})
	const n = 3 * recentSessions
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res := f.run(t, RunRequest{Prompt: "say ok"}, TaskIO{}); res.StopReason != "end_turn" {
				t.Errorf("task: %+v", res)
			}
		}()
	}
	wg.Wait()
	if held := f.core.heldSessions(); held != 0 {
		t.Errorf("after %d tasks ended the core still holds %d sessions", n, held)
	}
	cached := f.core.sessions.Known()
	if cached > recentSessions {
		t.Errorf("the index cache keeps %d sessions after the burst, want at most %d", cached, recentSessions)
	}

	// A session in use is held until its task ends.
	ev := &events{}
	started := make(chan string, 1)
	ev.on = func(e wire.Event) {
		if e.Type == "text" {
			select {
			case started <- e.TaskID:
			default:
			}
		}
	}
	task := f.core.Start(RunRequest{Prompt: "hang"}, TaskIO{Events: ev, Workspace: f.ws})
	<-started
	if held := f.core.heldSessions(); held != 1 {
		t.Errorf("while a task runs the core holds %d sessions, want 1", held)
	}
	f.core.Cancel(task.ID)
	wait(t, task)
	if held := f.core.heldSessions(); held != 0 {
		t.Errorf("after the task ended the core holds %d sessions", held)
	}
}
