package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/bench"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkLoopTurnOverhead is figure 4 and its history scaling: a task of
// k turns, each one the fake model answering at once with one call to the
// fault server's echo (allowed by policy), then a final text answer;
// against the same k+1 model round trips made directly with the provider
// (same system prompt, tools and growing history) plus k echo calls on a
// bare SDK session. Reported per model round trip; the goal is under 1 ms
// added per turn. The workspace is a git repository, as it usually is.
func BenchmarkLoopTurnOverhead(b *testing.B) {
	bin := testenv.GoBinary(b, "./internal/faultserver")
	root := gitRoot(b)
	reg := loopRegistry(b, bin, root, 1)
	cs := loopBareSession(b, bin)
	for _, k := range []int{1, 10, 50, 200} {
		b.Run(fmt.Sprintf("turns=%d", k), func(b *testing.B) { loopPair(b, reg, cs, root, k) })
	}
}

// BenchmarkLoopServers is figure 4 against the number of servers
// connected (each with the fault server's 11 tools, all offered to the
// model on every turn): a 10-turn task with 1, 10 and 100 servers.
func BenchmarkLoopServers(b *testing.B) {
	bin := testenv.GoBinary(b, "./internal/faultserver")
	root := gitRoot(b)
	cs := loopBareSession(b, bin)
	for _, n := range []int{1, 10, 100} {
		reg := loopRegistry(b, bin, root, n)
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) { loopPair(b, reg, cs, root, 10) })
	}
}

// gitRoot is a workspace folder that is a git repository.
func gitRoot(b *testing.B) string {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	if out, err := exec.Command(testenv.Tool(b, "git"), "init", "-q", root).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v\n%s", err, out)
	}
	return root
}

// loopRegistry connects n fault servers; the first is named f, so f__echo
// is the tool every turn calls.
func loopRegistry(b *testing.B, bin, root string, n int) *mcp.Registry {
	var servers []config.Server
	for i := 0; i < n; i++ {
		name := "f"
		if i > 0 {
			name = fmt.Sprintf("g%03d", i)
		}
		servers = append(servers, config.Server{Name: name, Origin: config.User, Command: bin, Args: []string{"-marker", "agentls-bench-loop"}, Cwd: root,
			ConnectTimeout: time.Minute, ListTimeout: time.Minute, CallTimeout: time.Minute})
	}
	reg := mcp.NewRegistry(servers, mcp.Options{Reserved: tools.BuiltinNames()})
	b.Cleanup(func() { reg.Close() })
	reg.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reg.Wait(ctx)
	for _, s := range reg.Servers() {
		if s.State != mcp.Connected {
			b.Fatalf("server %s: %s %s", s.Name, s.State, s.Error)
		}
	}
	return reg
}

// loopBareSession is the baseline's tool side: the SDK's own client on the
// fault server.
func loopBareSession(b *testing.B, bin string) *sdk.ClientSession {
	client := sdk.NewClient(&sdk.Implementation{Name: "bench-bare", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: exec.Command(bin, "-marker", "agentls-bench-loop-bare")}, nil)
	if err != nil {
		b.Fatalf("bare SDK session: %v", err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// loopPair times k-turn tasks against their bare equivalent, interleaved,
// and reports both per model round trip.
func loopPair(b *testing.B, reg *mcp.Registry, cs *sdk.ClientSession, root string, k int) {
	f := newLoopFixture(b, reg, root)
	script := func() {
		for i := 0; i < k; i++ {
			f.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{Name: "f__echo", Input: fmt.Sprintf(`{"text":"turn %d"}`, i)}}})
		}
		f.model.Script(modeltest.Turn{Text: "done"})
	}
	subject := func() time.Duration {
		script()
		start := time.Now()
		task := f.core.Start(agent.RunRequest{Prompt: "benchmark the loop"}, agent.TaskIO{})
		<-task.Done()
		d := time.Since(start)
		if res := task.Result(); res.StopReason != "end_turn" || res.Text != "done" || f.model.Pending() != 0 {
			b.Fatalf("task ended %+v with %d turns left", res, f.model.Pending())
		}
		return d
	}
	// One task first, to learn the exact system prompt and tools it sends.
	subject()
	first := f.model.ModelRequests("")[0]
	req := model.Request{Model: "fake-model", System: first.System(), Tools: toolDefs(b, first)}
	baseline := func() time.Duration {
		script()
		msgs := []model.Message{{Role: "user", Content: []model.Block{{Type: "text", Text: "benchmark the loop"}}}}
		start := time.Now()
		for {
			req.Messages = msgs
			resp, err := f.provider.Stream(context.Background(), req, func(string) {})
			if err != nil {
				b.Fatalf("bare model round trip: %v", err)
			}
			msgs = append(msgs, model.Message{Role: "assistant", Content: resp.Content})
			var results []model.Block
			for _, u := range resp.Content {
				if u.Type != "tool_use" {
					continue
				}
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "echo", Arguments: u.Input})
				if err != nil || res.IsError {
					b.Fatalf("bare call: %v %+v", err, res)
				}
				results = append(results, model.Block{Type: "tool_result", ToolUseID: u.ID, Content: res.Content[0].(*sdk.TextContent).Text})
			}
			if len(results) == 0 {
				break
			}
			msgs = append(msgs, model.Message{Role: "user", Content: results})
		}
		return time.Since(start)
	}
	subj, base := bench.Pair(b.N, subject, baseline)
	perTurn := func(d []time.Duration) []time.Duration {
		out := make([]time.Duration, len(d))
		for i, x := range d {
			out[i] = x / time.Duration(k+1)
		}
		return out
	}
	bench.ReportDurations(b, "", perTurn(subj), perTurn(base))
	b.ReportMetric(float64(len(req.Tools)), "tools")
}

// loopFixture is a Core over a fresh fake model, with its own state dir.
type loopFixture struct {
	core     *agent.Core
	model    *modeltest.Server
	provider model.Provider
}

func newLoopFixture(b *testing.B, reg *mcp.Registry, root string) *loopFixture {
	b.Helper()
	m := modeltest.New(b)
	cfg := &config.Config{}
	cfg.Model = config.Model{Provider: "openai", Name: "fake-model", BaseURL: m.URL() + "/v1", APIKeyEnv: "AGENTLS_BENCH_KEY"}
	cfg.Agent.MaxIterations = 1000
	// A window no task here fills: figure 4 is the loop's own cost, not a
	// compaction's (BenchmarkCompactionTurn measures that).
	cfg.Model.ContextWindow = 1 << 24
	cfg.MCP.Policy = []config.PolicyRule{{Pattern: "f__echo", Action: "allow", Origin: config.User}}
	getenv := func(k string) string {
		if k == "AGENTLS_BENCH_KEY" {
			return "bench"
		}
		return ""
	}
	prov, err := model.New(cfg.Model, getenv)
	if err != nil {
		b.Fatalf("model.New: %v", err)
	}
	core, err := agent.New(agent.Options{Config: cfg, Registry: reg, Provider: prov, StateDir: b.TempDir(), Root: root})
	if err != nil {
		b.Fatalf("agent.New: %v", err)
	}
	b.Cleanup(core.Close)
	return &loopFixture{core: core, model: m, provider: prov}
}

// toolDefs reads back the tools an OpenAI-shaped request offered.
func toolDefs(b *testing.B, r modeltest.Request) []model.ToolDef {
	var body struct {
		Tools []struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Tools) == 0 {
		b.Fatalf("no tools in the recorded request (%v): %.200s", err, r.Body)
	}
	defs := make([]model.ToolDef, len(body.Tools))
	for i, t := range body.Tools {
		defs[i] = model.ToolDef{Name: t.Function.Name, Description: t.Function.Description, Schema: t.Function.Parameters}
	}
	return defs
}
