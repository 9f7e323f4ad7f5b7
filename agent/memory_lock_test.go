package agent

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestATurnWaitsForAnotherAgentlsInTheSameSession: two Cores on one
// workspace and state folder, as Helix's language server and `agentls
// chat` beside it are, continue one session. While the first Core's turn
// streams, the second Core's turn waits (and says so) instead of loading
// the history mid-turn and interleaving its messages with the other's;
// once the first turn ends, the second's request carries all of it.
func TestATurnWaitsForAnotherAgentlsInTheSameSession(t *testing.T) {
	var opts Options
	f := newFixture(t, "anthropic", func(o *Options) { opts = *o })
	var mu sync.Mutex
	var logged []string
	opts.Logf = func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, fmt.Sprintf(format, a...))
	}
	other, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	f.model.Script(modeltest.Turn{Text: "the first turn streams", Hang: true}, modeltest.Turn{Text: "second answer"})

	const id = "shared-session"
	first := f.core.Start(RunRequest{Prompt: "first prompt", SessionID: id}, TaskIO{Workspace: f.ws})
	for len(f.model.Requests()) < 1 {
		time.Sleep(10 * time.Millisecond)
	}
	second := other.Start(RunRequest{Prompt: "second prompt", SessionID: id}, TaskIO{Workspace: f.ws})
	for waited := false; !waited; time.Sleep(10 * time.Millisecond) {
		if n := len(f.model.Requests()); n > 1 {
			t.Fatalf("the second agentls sent its turn (%d requests) while the first was in the middle of one in the same session", n)
		}
		mu.Lock()
		for _, l := range logged {
			waited = waited || strings.Contains(l, "another agentls is in a turn of it")
		}
		mu.Unlock()
	}
	f.core.Cancel(first.ID)
	if r := wait(t, first); r.StopReason != "cancelled" {
		t.Fatalf("first turn: %+v", r)
	}
	if r := wait(t, second); r.StopReason != "end_turn" || r.Text != "second answer" {
		t.Fatalf("second turn: %+v", r)
	}
	reqs := f.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	body := string(reqs[1].Body)
	for _, want := range []string{"first prompt", "this answer was cut off here", "second prompt"} {
		if !strings.Contains(body, want) {
			t.Errorf("the second turn's request lacks %q (the first turn, kept whole before it):\n%s", want, body)
		}
	}
	if i, j := strings.Index(body, "first prompt"), strings.Index(body, "second prompt"); i > j {
		t.Errorf("the second prompt comes before the first in the history")
	}
}
