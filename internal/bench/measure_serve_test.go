package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// BenchmarkServeInitialize is figure 3: the initialize round trip of a
// fresh `agentls serve` over stdio with 10 slow servers configured (each
// takes 10 s to answer its handshake), against the same with none. Goal:
// ratio ≤ 1.2, since initialize never waits for a server. The second pair
// ("next-") is the first request after initialized (agent/mcp/servers),
// which must answer at once with the servers still connecting.
func BenchmarkServeInitialize(b *testing.B) {
	fault := testenv.GoBinary(b, "./internal/faultserver")
	const marker = "agentls-bench-init-slow"
	slow := newHome(b, "http://127.0.0.1:9", slowServers(fault, 10, 0, 10*time.Second, marker))
	none := newHome(b, "http://127.0.0.1:9", "")
	run := func(h home, servers int) (initialize, next time.Duration) {
		c := startAgentls(b, h, nil)
		defer c.stop()
		initialize = c.initialize(h.root, false)
		start := time.Now()
		states := c.serverStates()
		next = time.Since(start)
		if len(states) != servers {
			b.Fatalf("agent/mcp/servers lists %d servers, want %d: %v", len(states), servers, states)
		}
		for name, st := range states {
			if st != "connecting" {
				b.Fatalf("server %s is %s right after initialized, want connecting", name, st)
			}
		}
		return initialize, next
	}
	b.Run("servers=10", func(b *testing.B) {
		var subjNext, baseNext []time.Duration
		subj, base := Pair(b.N,
			func() time.Duration { i, n := run(slow, 10); subjNext = append(subjNext, n); return i },
			func() time.Duration { i, n := run(none, 0); baseNext = append(baseNext, n); return i })
		ReportDurations(b, "", subj, base)
		ReportDurations(b, "next-", subjNext, baseNext)
	})
	testenv.WaitNoProcesses(b, marker, 10*time.Second)
}

// BenchmarkServeRSS is figure 6 and its scaling: the peak resident set
// (VmHWM) of `agentls serve` idle after initialize, and with n fault
// servers of 50 tools each connected. Idle is measured against a bare Go
// process of the same toolchain that does nothing (the fault server's
// -idle mode, the floor any Go binary pays); the loaded figures against
// idle agentls in the same run. Goals: under 30 MB idle, under 60 MB with
// 10 servers and 500 tools.
func BenchmarkServeRSS(b *testing.B) {
	fault := testenv.GoBinary(b, "./internal/faultserver")
	const marker = "agentls-bench-rss"
	idleHome := newHome(b, "http://127.0.0.1:9", "")
	idle := func() float64 {
		c := startAgentls(b, idleHome, nil)
		defer c.stop()
		c.initialize(idleHome.root, true)
		c.serverStates()
		time.Sleep(200 * time.Millisecond) // settle: a moment of idleness
		return peakRSS(b, c.cmd.Process.Pid)
	}
	b.Run("idle", func(b *testing.B) {
		floor := func() float64 {
			cmd := exec.Command(fault, "-idle", "-marker", marker)
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			time.Sleep(200 * time.Millisecond)
			return peakRSS(b, cmd.Process.Pid)
		}
		var subj, base []float64
		for i := 0; i < b.N; i++ {
			subj = append(subj, idle())
			base = append(base, floor())
		}
		ReportPair(b, "", UnitMB, maxOf(subj), maxOf(base))
	})
	for _, n := range []int{1, 10, 100} {
		h := newHome(b, "http://127.0.0.1:9", slowServers(fault, n, 39, 0, marker))
		b.Run(fmt.Sprintf("servers=%d,tools=%d", n, 50*n), func(b *testing.B) {
			loaded := func() float64 {
				c := startAgentls(b, h, nil)
				defer c.stop()
				c.initialize(h.root, true)
				c.waitConnected(n)
				return peakRSS(b, c.cmd.Process.Pid)
			}
			var subj, base []float64
			for i := 0; i < b.N; i++ {
				subj = append(subj, loaded())
				base = append(base, idle())
			}
			ReportPair(b, "", UnitMB, maxOf(subj), maxOf(base))
		})
	}
	testenv.WaitNoProcesses(b, marker, 10*time.Second)
}

// maxOf is the largest value: a peak is reported as the worst seen.
func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// BenchmarkServeRSSHistory is figure 6 against history: the peak resident
// set of `agentls serve` after one task of k tool turns (the fake model
// calling the fault server's echo, allowed by policy, events on), against
// idle agentls in the same run.
func BenchmarkServeRSSHistory(b *testing.B) {
	fault := testenv.GoBinary(b, "./internal/faultserver")
	const marker = "agentls-bench-rss-history"
	model := modeltest.New(b)
	servers := fmt.Sprintf("[agent]\nmax_iterations = 1000\n\n[mcp.servers.f]\ncommand = %q\nargs = [\"-marker\", %q]\n\n[mcp.policy]\n\"f__echo\" = \"allow\"\n", fault, marker)
	h := newHome(b, model.URL(), servers)
	idleHome := newHome(b, model.URL(), "")
	idle := func() float64 {
		c := startAgentls(b, idleHome, nil)
		defer c.stop()
		c.initialize(idleHome.root, true)
		c.serverStates()
		time.Sleep(200 * time.Millisecond)
		return peakRSS(b, c.cmd.Process.Pid)
	}
	for _, k := range []int{1, 10, 200} {
		b.Run(fmt.Sprintf("turns=%d", k), func(b *testing.B) {
			after := func() float64 {
				c := startAgentls(b, h, func(string, json.RawMessage, time.Time) {})
				defer c.stop()
				c.initialize(h.root, true)
				c.waitConnected(1)
				for i := 0; i < k; i++ {
					model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{Name: "f__echo", Input: fmt.Sprintf(`{"text":"turn %d"}`, i)}}})
				}
				model.Script(modeltest.Turn{Text: "done"})
				var res struct{ StopReason, Text, Error string }
				c.call("agent/run", map[string]any{"prompt": "grow the history"}, &res)
				if res.StopReason != "end_turn" || res.Text != "done" {
					b.Fatalf("agent/run ended %+v", res)
				}
				return peakRSS(b, c.cmd.Process.Pid)
			}
			var subj, base []float64
			for i := 0; i < b.N; i++ {
				subj = append(subj, after())
				base = append(base, idle())
			}
			ReportPair(b, "", UnitMB, maxOf(subj), maxOf(base))
		})
	}
	testenv.WaitNoProcesses(b, marker, 10*time.Second)
}

// BenchmarkServeRSSAfterAFlood is figure 18: the resident set of `agentls
// serve` once a flood of agent/runs (each a new session, all at once) has
// ended and the server has been idle a moment, against the same process
// before the flood; and the peak during it. Memory a flood needed must go
// back: kept-share is the part of what the flood added at its peak that
// is still resident once idle (goal ≤ 0.25; it was 1, all of it, before
// the core gave memory back when idle), and the session folder stays
// within [sessions] keep.
func BenchmarkServeRSSAfterAFlood(b *testing.B) {
	const runs = 2000
	model := modeltest.New(b)
	model.Answer(func(modeltest.Request) (modeltest.Turn, bool) { return modeltest.Turn{Text: "ok"}, true })
	h := newHome(b, model.URL(), "")
	var before, after, peak, files []float64
	for i := 0; i < b.N; i++ {
		c := startAgentls(b, h, nil)
		c.initialize(h.root, false)
		c.serverStates()
		time.Sleep(200 * time.Millisecond)
		pid := c.cmd.Process.Pid
		before = append(before, currentRSS(b, pid))
		var wg sync.WaitGroup
		var failed atomic.Int32
		for j := 0; j < runs; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var res struct{ StopReason string }
				ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
				defer cancel()
				if _, err := c.conn.Call(ctx, "agent/run", map[string]any{"prompt": "say ok"}, &res); err != nil || res.StopReason != "end_turn" {
					failed.Add(1)
				}
			}()
		}
		wg.Wait()
		if n := failed.Load(); n > 0 {
			b.Fatalf("%d of %d agent/runs failed", n, runs)
		}
		time.Sleep(2 * time.Second) // idle a moment
		after = append(after, currentRSS(b, pid))
		peak = append(peak, peakRSS(b, pid))
		sessions, _ := filepath.Glob(filepath.Join(h.state, "agentls", "sessions", "*", "*.jsonl"))
		files = append(files, float64(len(sessions)))
		c.stop()
	}
	ReportPair(b, "idle-after-", UnitMB, maxOf(after), maxOf(before))
	b.ReportMetric(maxOf(peak), "peak-MB")
	b.ReportMetric((maxOf(after)-maxOf(before))/max(maxOf(peak)-maxOf(before), 1), "kept-share")
	b.ReportMetric(maxOf(files), "session-files")
}

// currentRSS is a process's VmRSS (resident set now) in MB.
func currentRSS(b *testing.B, pid int) float64 {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatalf("read VmRSS: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				b.Fatalf("VmRSS %q: %v", rest, err)
			}
			return float64(kb) / 1024
		}
	}
	b.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}
