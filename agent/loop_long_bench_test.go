package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/bench"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/wire"
)

// Figures 10-13: long sessions. Token figures are counts the fake model
// bills as each API documents it, so they do not depend on the machine;
// the timed ones interleave subject and baseline as every figure does.

// longCore is a Core over a fresh fake model speaking format.
func longCore(b *testing.B, format string, reg *mcp.Registry, root string, tweak func(*config.Config)) (*agent.Core, *modeltest.Server) {
	b.Helper()
	return longCoreAt(b, format, reg, root, b.TempDir(), tweak)
}

// longCoreAt is longCore keeping sessions in state.
func longCoreAt(b *testing.B, format string, reg *mcp.Registry, root, state string, tweak func(*config.Config)) (*agent.Core, *modeltest.Server) {
	b.Helper()
	m := modeltest.New(b)
	cfg := &config.Config{}
	base := m.URL()
	if format == "openai" {
		base += "/v1"
	}
	cfg.Model = config.Model{Provider: format, Name: "fake-model", BaseURL: base, APIKeyEnv: "AGENTLS_BENCH_KEY", ContextWindow: 1 << 20}
	cfg.Agent.MaxIterations = 1000
	if tweak != nil {
		tweak(cfg)
	}
	prov, err := model.New(cfg.Model, func(k string) string { return map[string]string{"AGENTLS_BENCH_KEY": "bench"}[k] })
	if err != nil {
		b.Fatalf("model.New: %v", err)
	}
	core, err := agent.New(agent.Options{Config: cfg, Registry: reg, Provider: prov, StateDir: state, Root: root})
	if err != nil {
		b.Fatalf("agent.New: %v", err)
	}
	b.Cleanup(core.Close)
	return core, m
}

func runTask(b *testing.B, core *agent.Core, req agent.RunRequest) wire.RunResult {
	b.Helper()
	task := core.Start(req, agent.TaskIO{})
	<-task.Done()
	res := task.Result()
	if res.StopReason != "end_turn" {
		b.Fatalf("task ended %+v", res)
	}
	return res
}

func readScript(m *modeltest.Server, turns int, file string) { readScriptSaying(m, turns, file, "") }

// readScriptSaying has the model say text with every read: text is never
// elided, so only a summary shrinks it.
func readScriptSaying(m *modeltest.Server, turns int, file, text string) {
	for i := 0; i < turns; i++ {
		m.Script(modeltest.Turn{Text: text, ToolCalls: []modeltest.ToolCall{{Name: "read_file", Input: fmt.Sprintf(`{"path":%q}`, file)}}})
	}
	m.Script(modeltest.Turn{Text: "done"})
}

func benchRoot(b *testing.B) string {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	var s strings.Builder
	for i := 0; s.Len() < 6000; i++ {
		fmt.Fprintf(&s, "line %d of the file the task reads over and over\n", i)
	}
	if err := os.WriteFile(filepath.Join(root, "data.txt"), []byte(s.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return root
}

// BenchmarkPromptCache is figure 10: the input a 30-turn task is billed,
// with the prompt cache (Anthropic's prices: a cache read costs 0.1 of an
// input token, a write 1.25; on the OpenAI wire cached tokens at 0.1, as
// gpt-5 and gpt-4.1 price them) vs the same requests without it. Goal ≤ 0.2.
func BenchmarkPromptCache(b *testing.B) {
	for _, format := range []string{"anthropic", "openai"} {
		b.Run("wire="+format, func(b *testing.B) {
			root := benchRoot(b)
			var billed, full float64
			for i := 0; i < b.N; i++ {
				core, m := longCore(b, format, nil, root, nil)
				readScript(m, 30, "data.txt")
				runTask(b, core, agent.RunRequest{Prompt: "read data.txt thirty times"})
				u := m.Billing()
				billed += float64(u.Input-u.CacheRead-u.CacheWrite) + 0.1*float64(u.CacheRead) + 1.25*float64(u.CacheWrite)
				full += float64(u.Input)
			}
			bench.ReportPair(b, "", "tokens", billed/float64(b.N), full/float64(b.N))
		})
	}
}

// BenchmarkToolSearch is figure 11: the tool-definition tokens a request
// carries with 200 MCP tools on the OpenAI wire (tool search: the
// built-ins, search_tools and what was loaded) vs offering all of them.
// Goal ≤ 0.25.
func BenchmarkToolSearch(b *testing.B) {
	bin := testenv.GoBinary(b, "./internal/faultserver")
	root := benchRoot(b)
	// Each fault server lists its fixed tools (however many the fault
	// server has today) and enough numbered ones to make 50.
	numbered := 50 - len(faultRegistry(b, bin, root, 1, 0).Tools())
	if numbered < 31 { // tool_030 is the one the task loads
		b.Fatalf("the fault server lists %d fixed tools: a server of 50 would have no tool_030", 50-numbered)
	}
	reg := faultRegistry(b, bin, root, 4, numbered)
	if n := len(reg.Tools()); n != 200 {
		b.Fatalf("%d MCP tools connected, want 200 (4 servers of %d fixed and %d numbered tools)", n, 50-numbered, numbered)
	}
	allow := func(c *config.Config) {
		c.MCP.Policy = []config.PolicyRule{{Pattern: "f2__*", Action: "allow", Origin: config.User}}
	}
	tokens := func(m *modeltest.Server) float64 {
		n := 0
		reqs := m.ModelRequests("")
		for _, r := range reqs {
			var v struct {
				Tools json.RawMessage `json:"tools"`
			}
			json.Unmarshal(r.Body, &v)
			n += len(v.Tools)
		}
		return float64(n) / 4 / float64(len(reqs))
	}
	var withSearch, all float64
	for i := 0; i < b.N; i++ {
		core, m := longCore(b, "openai", reg, root, allow)
		m.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{Name: "search_tools", Input: `{"query":"numbered tool 030"}`}}},
			modeltest.Turn{ToolCalls: []modeltest.ToolCall{{Name: "f2__tool_030", Input: `{}`}}}, modeltest.Turn{Text: "done"})
		runTask(b, core, agent.RunRequest{Prompt: "use tool 30"})
		withSearch += tokens(m)
		core, m = longCore(b, "openai", reg, root, func(c *config.Config) {
			allow(c)
			c.Model.MaxTools, c.MCP.ToolBudgetTokens = 1000, 1<<30
		})
		m.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{Name: "f2__tool_030", Input: `{}`}}}, modeltest.Turn{Text: "done"})
		runTask(b, core, agent.RunRequest{Prompt: "use tool 30"})
		all += tokens(m)
	}
	bench.ReportPair(b, "", "tokens", withSearch/float64(b.N), all/float64(b.N))
}

// faultRegistry is n connected fault servers f1..fn, each with numbered
// extra tools, closed when b ends.
func faultRegistry(b *testing.B, bin, root string, n, numbered int) *mcp.Registry {
	var servers []config.Server
	for i := 1; i <= n; i++ {
		servers = append(servers, config.Server{Name: fmt.Sprintf("f%d", i), Origin: config.User, Command: bin, Cwd: root,
			Args: []string{"-tools", strconv.Itoa(numbered), "-marker", "agentls-bench-search"}, ConnectTimeout: time.Minute, ListTimeout: time.Minute, CallTimeout: time.Minute})
	}
	reg := mcp.NewRegistry(servers, agent.RegistryOptions(&config.Config{MCP: config.MCP{MaxToolsPerServer: 64}}, nil))
	b.Cleanup(func() { reg.Close() })
	reg.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	reg.Wait(ctx)
	cancel()
	return reg
}

// BenchmarkParallelCalls is figure 12: a task whose model answers once
// with 4 independent 300 ms calls (the fault server's sleep, allowed by
// policy) vs the same task with one such call. Goal ≤ 1.3.
func BenchmarkParallelCalls(b *testing.B) {
	bin := testenv.GoBinary(b, "./internal/faultserver")
	root := benchRoot(b)
	reg := loopRegistry(b, bin, root, 1)
	core, m := longCore(b, "openai", reg, root, func(c *config.Config) {
		c.MCP.Policy = []config.PolicyRule{{Pattern: "f__sleep", Action: "allow", Origin: config.User}}
	})
	task := func(calls int) func() time.Duration {
		return func() time.Duration {
			var tc []modeltest.ToolCall
			for i := 0; i < calls; i++ {
				tc = append(tc, modeltest.ToolCall{Name: "f__sleep", Input: `{"ms":300}`})
			}
			m.Script(modeltest.Turn{ToolCalls: tc}, modeltest.Turn{Text: "done"})
			return bench.Timed(func() { runTask(b, core, agent.RunRequest{Prompt: "sleep"}) })
		}
	}
	subj, base := bench.Pair(b.N, task(4), task(1))
	bench.ReportPair(b, "", "ms", bench.Millis(bench.Median(subj)), bench.Millis(bench.Median(base)))
}

// BenchmarkCompactionTurn is figure 13: the time a compaction adds to the
// turn that triggers it: a follow-up prompt in a session of 12 reads that
// passes 75% of an 8k window (old results elided, older turns summarized
// by the model, which answers at once) vs the same follow-up with a window
// it fits.
func BenchmarkCompactionTurn(b *testing.B) {
	root := benchRoot(b)
	turn := func(window int) func() time.Duration {
		return func() time.Duration {
			state := b.TempDir()
			core, m := longCoreAt(b, "anthropic", nil, root, state, nil)
			readScriptSaying(m, 12, "data.txt", strings.Repeat("Checking every line of the file again. ", 30))
			res := runTask(b, core, agent.RunRequest{Prompt: "read data.txt twelve times"})
			core.Close()
			core, m = longCoreAt(b, "anthropic", nil, root, state, func(c *config.Config) { c.Model.ContextWindow = window })
			summaries := 0
			m.Answer(func(r modeltest.Request) (modeltest.Turn, bool) {
				if strings.Contains(r.System(), "You compact") {
					summaries++
					return modeltest.Turn{Text: "Summary: data.txt was read twelve times."}, true
				}
				return modeltest.Turn{}, false
			})
			m.Script(modeltest.Turn{Text: "done"})
			d := bench.Timed(func() { runTask(b, core, agent.RunRequest{Prompt: "what is in it?", SessionID: res.SessionID}) })
			if (window < 1<<20) != (summaries > 0) {
				b.Fatalf("window %d: %d summary requests", window, summaries)
			}
			return d
		}
	}
	subj, base := bench.Pair(b.N, turn(8192), turn(1<<20))
	bench.ReportDurations(b, "", subj, base)
}
