package agent

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/internal/bench"
)

// hugeSession stores a session of four turns whose second tool result is
// 50 MB (a long session's files grow this big through tool output).
func hugeSession(b *testing.B, s session.Store, id string) {
	b.Helper()
	msgs := fourTurns()
	msgs[2] = model.Message{Role: "user", Content: []model.Block{{Type: "tool_result", ToolUseID: "a", Content: strings.Repeat("log line 0123456789\n", 50<<20/20)}}}
	if err := s.Append(id, msgs...); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSessionsList is figure 15: agent/sessions (Core.Sessions) of a
// workspace whose session file is 50 MB, against one whose session is a few
// hundred bytes. The index next to the sessions answers both; goal ≤ 2x.
func BenchmarkSessionsList(b *testing.B) {
	small, huge := session.NewStore(b.TempDir(), "/small"), session.NewStore(b.TempDir(), "/huge")
	if err := small.Append("s1", fourTurns()...); err != nil {
		b.Fatal(err)
	}
	hugeSession(b, huge, "s1")
	for _, s := range []session.Store{small, huge} {
		if l, err := s.List(); err != nil || len(l) != 1 || l[0].Turns != 4 {
			b.Fatalf("list = %+v, %v", l, err)
		}
	}
	var subj, base []time.Duration
	for b.Loop() {
		t0 := time.Now()
		huge.List()
		t1 := time.Now()
		small.List()
		subj, base = append(subj, t1.Sub(t0)), append(base, time.Since(t1))
	}
	bench.ReportDurations(b, "", subj, base)
}

// BenchmarkSessionsListRebuild is figure 15's worst case: the index is
// missing (deleted, or written by an older agentls), so the listing reads
// the 50 MB session once, line by line, and saves the index again.
func BenchmarkSessionsListRebuild(b *testing.B) {
	small, huge := session.NewStore(b.TempDir(), "/small"), session.NewStore(b.TempDir(), "/huge")
	if err := small.Append("s1", fourTurns()...); err != nil {
		b.Fatal(err)
	}
	hugeSession(b, huge, "s1")
	var subj, base []time.Duration
	for b.Loop() {
		os.Remove(huge.IndexPath())
		os.Remove(small.IndexPath())
		t0 := time.Now()
		huge.List()
		t1 := time.Now()
		small.List()
		subj, base = append(subj, t1.Sub(t0)), append(base, time.Since(t1))
	}
	bench.ReportDurations(b, "", subj, base)
}

// BenchmarkHugePrompt is figure 16: a 50 MB prompt through Core.Start until
// the task ends (refused: larger than the 200k-token window), against a
// blank prompt refused on the same path. It states the bound: the time and
// the memory allocated do not grow with the prompt (the prompt is never
// copied, redacted or echoed whole).
func BenchmarkHugePrompt(b *testing.B) {
	m := modeltest.New(b)
	cfg := testConfig(m.URL(), "anthropic")
	prov, err := model.New(cfg.Model, func(string) string { return "bench" })
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	core, err := New(Options{Config: cfg, Provider: prov, StateDir: b.TempDir(), Root: root})
	if err != nil {
		b.Fatal(err)
	}
	defer core.Close()
	ws := DiskWorkspace(root)
	prompt := "Summarize this log\n" + strings.Repeat("log line 0123456789\n", 50<<20/20)
	var subj, base []time.Duration
	var subjAlloc, baseAlloc, subjN, baseN uint64
	var ms runtime.MemStats
	run := func(p string) (time.Duration, uint64, uint64) {
		runtime.ReadMemStats(&ms)
		bytes0, n0 := ms.TotalAlloc, ms.Mallocs
		t0 := time.Now()
		task := core.Start(RunRequest{Prompt: p}, TaskIO{Workspace: ws})
		<-task.Done()
		d := time.Since(t0)
		if r := task.Result(); r.StopReason != "error" {
			b.Fatalf("result = %+v", r)
		}
		runtime.ReadMemStats(&ms)
		return d, ms.TotalAlloc - bytes0, ms.Mallocs - n0
	}
	for b.Loop() {
		d, a, n := run(prompt)
		subj, subjAlloc, subjN = append(subj, d), subjAlloc+a, subjN+n
		d, a, n = run("   ")
		base, baseAlloc, baseN = append(base, d), baseAlloc+a, baseN+n
	}
	bench.ReportDurations(b, "", subj, base)
	ops := float64(len(subj))
	bench.ReportPair(b, "alloc-", "KB", float64(subjAlloc)/1024/ops, float64(baseAlloc)/1024/ops)
	bench.ReportPair(b, "allocs-", "n", float64(subjN)/ops, float64(baseN)/ops)
}

// BenchmarkCancelHugePrompt is figure 16's cancel: a 50 MB prompt the model
// can take (a 20M-token window), cancelled while agentls handles it (the
// session has stored it; the transcript's redaction and the request are
// under way), against the cancel of a task waiting on the model. What is
// measured is Cancel to the task's end: agent/cancel takes effect at once.
func BenchmarkCancelHugePrompt(b *testing.B) {
	m := modeltest.New(b)
	cfg := testConfig(m.URL(), "anthropic")
	cfg.Model.ContextWindow = 20_000_000
	prov, err := model.New(cfg.Model, func(string) string { return "bench" })
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	core, err := New(Options{Config: cfg, Provider: prov, StateDir: b.TempDir(), Root: root})
	if err != nil {
		b.Fatal(err)
	}
	defer core.Close()
	ws := DiskWorkspace(root)
	var line strings.Builder
	for i := 0; line.Len() < 50<<20; i++ {
		if i%10 == 0 {
			line.WriteString("request ok api_key=abcdef0123456789 user=alice\n")
		} else {
			line.WriteString("GET /index.html 200 1534 bytes in 3 ms from 10.0.0.1\n")
		}
	}
	prompt := "Summarize this log\n" + line.String()
	cancelAfter := func(p string, ready func(*Task) bool) time.Duration {
		m.Script(modeltest.Turn{Hang: true})
		task := core.Start(RunRequest{Prompt: p}, TaskIO{Workspace: ws})
		for !ready(task) {
			time.Sleep(time.Millisecond)
		}
		t0 := time.Now()
		core.Cancel(task.ID)
		<-task.Done()
		d := time.Since(t0)
		if r := task.Result(); r.StopReason != "cancelled" {
			b.Fatalf("result = %+v", r)
		}
		return d
	}
	stored := func(t *Task) bool {
		st, err := os.Stat(core.sessions.Path(t.SessionID))
		return err == nil && st.Size() > 50<<20
	}
	var subj, base []time.Duration
	for b.Loop() {
		subj = append(subj, cancelAfter(prompt, stored))
		n := len(m.Requests())
		base = append(base, cancelAfter("hello", func(t *Task) bool { return len(m.Requests()) > n }))
	}
	bench.ReportDurations(b, "cancel-", subj, base)
}
