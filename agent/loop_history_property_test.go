package agent

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

// TestPropertyCancelAnywhereKeepsHistorySendable cancels tasks at random
// points (while streaming, while an approval waits, while a tool runs,
// between tools) in one long session, and checks after each task that the
// stored history is valid to send and that the loop never refused to send.
func TestPropertyCancelAnywhereKeepsHistorySendable(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := &lockedRand{r: rand.New(rand.NewSource(seed))}
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			f := newFixture(t, format, nil)
			writeFileT(t, f.dir+"/a.txt", "alpha\n")
			randomTurn := func() modeltest.Turn {
				tr := modeltest.Turn{Text: "thinking about it", ChunkDelay: time.Duration(rng.Intn(3)) * time.Millisecond}
				if rng.Intn(3) == 0 {
					return tr
				}
				n := 1 + rng.Intn(3)
				for i := 0; i < n; i++ {
					tc := []modeltest.ToolCall{
						{Name: "read_file", Input: `{"path":"a.txt"}`},
						{Name: "list_directory", Input: `{}`},
						{Name: "write_file", Input: `{"path":"b.txt","content":"beta"}`},
						{Name: "run_command", Input: `{"command":"true"}`},
					}[rng.Intn(4)]
					tr.ToolCalls = append(tr.ToolCalls, tc)
				}
				return tr
			}
			approver := approverFunc(func(ctx context.Context, a wire.Approval) (string, error) {
				select {
				case <-time.After(time.Duration(rng.Intn(5)) * time.Millisecond):
				case <-ctx.Done():
					return "", ctx.Err()
				}
				return []string{"allow_once", "reject_once"}[rng.Intn(2)], nil
			})
			session := ""
			for i := 0; i < 40; i++ {
				for f.model.Pending() < 6 {
					f.model.Script(randomTurn())
				}
				// Cancel at the k-th event, or after a random delay (which
				// also lands before the first event: mid-request, mid-lock).
				k := 1 + rng.Intn(25)
				ev := &events{}
				n := 0
				ev.on = func(e wire.Event) {
					if n++; n == k {
						f.core.Cancel(e.TaskID)
					}
				}
				if rng.Intn(3) == 0 {
					delay := time.Duration(rng.Intn(20)) * time.Millisecond
					ev.on = nil
					task := f.core.Start(RunRequest{Prompt: fmt.Sprintf("step %d", i), SessionID: session}, TaskIO{Events: ev, Approver: approver, Workspace: f.ws})
					timer := time.AfterFunc(delay, func() { f.core.Cancel(task.ID) })
					res := wait(t, task)
					timer.Stop()
					session = res.SessionID
					if res.StopReason == "error" {
						t.Fatalf("step %d (cancel after %s): %+v", i, delay, res)
					}
					assertStoredValid(t, f, session)
					continue
				}
				res := f.run(t, RunRequest{Prompt: fmt.Sprintf("step %d", i), SessionID: session}, TaskIO{Events: ev, Approver: approver})
				session = res.SessionID
				if res.StopReason == "error" {
					t.Fatalf("step %d (cancel at event %d): %+v", i, k, res)
				}
				assertStoredValid(t, f, session)
			}
		})
	}
}

// lockedRand is shared by the test and the approver goroutines.
type lockedRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (l *lockedRand) Intn(n int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Intn(n)
}
