package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// progressLog records the progress messages a call's listener heard.
type progressLog struct {
	mu  sync.Mutex
	got []string
}

func (p *progressLog) add(pr Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got = append(p.got, pr.Message)
}

func (p *progressLog) messages() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.got...)
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestACallTheServerRunsAsATask: agentls declares the Tasks extension on
// its requests, so the TypeScript SDK v2 server answers long with a task
// (resultType "task"); agentls polls tasks/get, each statusMessage reaching
// the call's listener as progress, until the task completes with the
// tool's result.
func TestACallTheServerRunsAsATask(t *testing.T) {
	log := filepath.Join(t.TempDir(), "requests.log")
	r := startRegistry(t, []config.Server{v2Server(t, "v2", log)}, Options{})
	var prog progressLog
	res := callListening(t, r, CallListener{Progress: prog.add}, "v2__long", `{"steps":3}`)
	if res.IsError || res.Text != "finished 3 steps" || res.Task != nil {
		t.Fatalf("result %+v", res)
	}
	if got := strings.Join(prog.messages(), " | "); got != "started | step 1 of 3 | step 2 of 3 | step 3 of 3 | done" {
		t.Errorf("progress %q", got)
	}
	reqs := readLog(t, log)
	if !strings.Contains(reqs, "tools/call long tasks=true\n") || strings.Count(reqs, "tasks/get t-1\n") != 4 {
		t.Errorf("the server got:\n%s", reqs)
	}
}

// TestCancellingATaskReachesTheServer: a call whose task is still working
// is cancelled by its caller; the server hears tasks/cancel for that task
// (the extension forbids notifications/cancelled for it) and the call
// says it was cancelled.
func TestCancellingATaskReachesTheServer(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "requests.log")
	r := startRegistry(t, []config.Server{v2Server(t, "v2", log)}, Options{})
	res := cancelHeldTask(t, r, dir)
	if !res.IsError || !strings.Contains(res.Text, "call cancelled (task t-1 was cancelled on the server)") {
		t.Fatalf("result %+v", res)
	}
	if reqs := readLog(t, log); !strings.Contains(reqs, "tasks/cancel t-1\n") {
		t.Errorf("no tasks/cancel reached the server:\n%s", reqs)
	}
}

// cancelHeldTask calls long with a hold that never ends and cancels the
// call once the task says it waits.
func cancelHeldTask(t *testing.T, r *Registry, dir string) Result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held := make(chan struct{})
	var once sync.Once
	l := CallListener{Progress: func(p Progress) {
		if strings.HasPrefix(p.Message, "waiting for ") {
			once.Do(func() { close(held) })
		}
	}}
	done := make(chan Result, 1)
	go func() {
		done <- r.Call(WithListener(ctx, l), "v2__long", []byte(`{"hold":"`+filepath.Join(dir, "never")+`"}`))
	}()
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("the task never reported it was waiting")
	}
	cancel()
	return <-done
}

// TestATaskOutlivesItsCallTimeout: a task still working at call_timeout
// comes back as a Result with Task set (not an error, and nothing
// cancelled); AwaitTask follows it on to its result once it can finish.
func TestATaskOutlivesItsCallTimeout(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "requests.log")
	s := v2Server(t, "v2", log)
	s.CallTimeout = 500 * time.Millisecond
	r := startRegistry(t, []config.Server{s}, Options{})
	release := filepath.Join(dir, "release")
	res := call(t, r, "v2__long", `{"steps":1,"hold":"`+release+`"}`)
	if res.IsError || res.Task == nil || res.Task.ID != "t-1" || res.Task.Server != "v2" || res.Task.Tool != "v2__long" ||
		!strings.Contains(res.Text, "v2__long is still running on v2 as task t-1 (last status: waiting for ") {
		t.Fatalf("result %+v", res)
	}
	if reqs := readLog(t, log); strings.Contains(reqs, "tasks/cancel") {
		t.Fatalf("the task was cancelled:\n%s", reqs)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var prog progressLog
	got := r.AwaitTask(ctx, *res.Task, CallListener{Progress: prog.add})
	if got.IsError || got.Text != "finished 1 steps" {
		t.Fatalf("awaited %+v", got)
	}
	if m := prog.messages(); len(m) == 0 || m[len(m)-1] != "done" {
		t.Errorf("progress %q", m)
	}
}

// TestATasksQuestionGoesThroughTheListener: a task that needs the user's
// answer (input_required, its inputRequests on tasks/get) asks through the
// call's listener; the answer goes back with tasks/update and the task finishes with it. Declined, the
// server gets a decline and no content.
func TestATasksQuestionGoesThroughTheListener(t *testing.T) {
	log := filepath.Join(t.TempDir(), "requests.log")
	r := startRegistry(t, []config.Server{v2Server(t, "v2", log)}, Options{})
	yes := &asked{answer: func(Elicitation) ElicitAnswer {
		return ElicitAnswer{Action: wire.ElicitAccept, Content: map[string]any{"color": "teal"}}
	}}
	res := callListening(t, r, yes.listener(), "v2__long", `{"steps":1,"ask":"Which colour?"}`)
	if res.IsError || res.Text != `finished 1 steps; answer {"color":"teal"}` {
		t.Fatalf("result %+v", res)
	}
	if qs := yes.questions(); len(qs) != 1 || qs[0].Server != "v2" || qs[0].Message != "Which colour?" || qs[0].Mode != wire.ElicitForm {
		t.Errorf("questions %+v", qs)
	}
	no := &asked{answer: func(Elicitation) ElicitAnswer {
		return ElicitAnswer{Action: wire.ElicitDecline, Content: map[string]any{"color": "x"}}
	}}
	res = callListening(t, r, no.listener(), "v2__long", `{"steps":1,"ask":"Which colour?"}`)
	if res.IsError || res.Text != `finished 1 steps; answer {"action":"decline"}` {
		t.Fatalf("declined: %+v", res)
	}
	if reqs := readLog(t, log); strings.Count(reqs, "tasks/update") != 2 || !strings.Contains(reqs, `tasks/update t-2 {"pick":{"action":"decline"}}`) {
		t.Errorf("the server got:\n%s", reqs)
	}
}

// TestATaskOverStreamableHTTP: the same server over Streamable HTTP, where
// the task result comes in an HTTP response (JSON or an event stream)
// the SDK reads itself: the task is followed to its result with its
// progress, and a cancelled one gets tasks/cancel.
func TestATaskOverStreamableHTTP(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "requests.log")
	srv := testenv.MCPv2ServerHTTP(t, log)
	r := startRegistry(t, []config.Server{remoteServer("v2", srv.URL, nil)}, Options{})
	if info := serverInfo(t, r, "v2"); info.State != Connected {
		t.Fatalf("state %s: %s", info.State, info.Error)
	}
	var prog progressLog
	res := callListening(t, r, CallListener{Progress: prog.add}, "v2__long", `{"steps":2}`)
	if res.IsError || res.Text != "finished 2 steps" {
		t.Fatalf("result %+v", res)
	}
	if got := strings.Join(prog.messages(), " | "); got != "started | step 1 of 2 | step 2 of 2 | done" {
		t.Errorf("progress %q", got)
	}
	// A progress notification first: the answer is an event stream, the
	// task its last event.
	var streamed progressLog
	res = callListening(t, r, CallListener{Progress: streamed.add}, "v2__long", `{"steps":1,"stream":true}`)
	if res.IsError || res.Text != "finished 1 steps" {
		t.Fatalf("streamed: %+v", res)
	}
	// The SDK hands notifications to their handler on a goroutine of its
	// own: the notification may come before or after the task's first status.
	var statuses []string
	notified := 0
	for _, m := range streamed.messages() {
		if m == "creating the task" {
			notified++
		} else {
			statuses = append(statuses, m)
		}
	}
	if got := strings.Join(statuses, " | "); got != "started | step 1 of 1 | done" || notified != 1 {
		t.Errorf("streamed progress %q", streamed.messages())
	}

	res = cancelHeldTask(t, r, dir)
	if !res.IsError || !strings.Contains(res.Text, "call cancelled (task t-3 was cancelled on the server)") {
		t.Fatalf("result %+v", res)
	}
	if reqs := readLog(t, log); !strings.Contains(reqs, "tasks/cancel t-3\n") {
		t.Errorf("no tasks/cancel reached the server:\n%s", reqs)
	}
}

// TestATaskPastItsTimeToLiveIsNotFollowedForEver: a task still working
// past its ttlMs (counted from when agentls got it), which the server may
// drop at any time,
// ends the call saying so instead of being polled without end.
func TestATaskPastItsTimeToLiveIsNotFollowedForEver(t *testing.T) {
	dir := t.TempDir()
	r := startRegistry(t, []config.Server{v2Server(t, "v2", filepath.Join(dir, "requests.log"))}, Options{})
	res := call(t, r, "v2__long", `{"hold":"`+filepath.Join(dir, "never")+`","ttl":300}`)
	if !res.IsError || !strings.Contains(res.Text, "task t-1 of long is still working past its time to live (ttlMs 300); agentls stopped following it") {
		t.Fatalf("result %+v", res)
	}
}
