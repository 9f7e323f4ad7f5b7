//go:build unix

package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/bench"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// These benchmarks back the figures of scripts/bench.sh. Each measures
// agentls's path and a bare baseline in the same run, interleaved, and
// reports medians and their ratio (internal/bench). Heavy setup (building
// the fault server, starting processes) happens inside the benchmark
// functions, so plain `go test` never pays for it.

// benchServer is a user-tier config entry for the fault server.
func benchServer(bin, name, cwd string, flags ...string) config.Server {
	return config.Server{Name: name, Origin: config.User, Command: bin, Args: append(flags, "-marker", "agentls-bench-"+name),
		Cwd: cwd, ConnectTimeout: time.Minute, ListTimeout: time.Minute, CallTimeout: time.Minute}
}

// startRegistry connects servers and fails the benchmark unless all of
// them connected; the registry is closed at cleanup.
func startRegistry(b *testing.B, servers []config.Server) *mcp.Registry {
	b.Helper()
	r := mcp.NewRegistry(servers, mcp.Options{})
	b.Cleanup(func() { r.Close() })
	r.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r.Wait(ctx)
	for _, s := range r.Servers() {
		if s.State != mcp.Connected {
			b.Fatalf("server %s: %s %s", s.Name, s.State, s.Error)
		}
	}
	return r
}

// bareSession is the baseline: the official SDK's own client on a second
// instance of the same server, no registry in between.
func bareSession(b *testing.B, bin string, args ...string) *sdk.ClientSession {
	return bareSessionWith(b, nil, bin, args...)
}

// bareSessionWith is bareSession with client options: a listing compared
// with the registry's declares what the registry declares (elicitation in
// both modes, roots), because a server may list tools by the client's
// capabilities (server-everything lists its elicitation tools only then).
func bareSessionWith(b *testing.B, opts *sdk.ClientOptions, bin string, args ...string) *sdk.ClientSession {
	b.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "bench-bare", Version: "1"}, opts)
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: exec.Command(bin, args...)}, nil)
	if err != nil {
		b.Fatalf("bare SDK session on %s: %v", bin, err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// BenchmarkRegistryCallVsBareSDK is figure 1: one echo call through the
// path the agent takes (the call policy decides, the registry maps the
// namespaced name back, calls, converts and caps the result) against the
// same call on a bare SDK session to the same Go server. Goal: ratio ≤ 1.10
// or under 50 µs added per call.
func BenchmarkRegistryCallVsBareSDK(b *testing.B) {
	bin := testenv.GoBinary(b, "./internal/faultserver")
	r := startRegistry(b, []config.Server{benchServer(bin, "f", b.TempDir())})
	var echo mcp.Tool
	for _, t := range r.Tools() {
		if t.ServerTool == "echo" {
			echo = t
		}
	}
	if echo.Name == "" {
		b.Fatal("the fault server lists no echo tool")
	}
	pol := &trust.Policy{Rules: []config.PolicyRule{
		{Pattern: "f__*", Action: "ask", Origin: config.User},
		{Pattern: echo.Name, Action: "allow", Origin: config.User},
	}}
	info := trust.ToolInfo{Name: echo.Name, DefinitionHash: echo.DefinitionHash}
	if echo.Annotations != nil {
		info.ReadOnlyHint, info.DestructiveHint = echo.Annotations.ReadOnlyHint, echo.Annotations.DestructiveHint
	}
	args := json.RawMessage(`{"text":"hello"}`)
	subject := func() time.Duration {
		return bench.Timed(func() {
			if d := pol.ClassifyCall(info); d.Action != trust.Allow {
				b.Fatalf("policy says %s (%s), want allow", d.Action, d.Reason)
			}
			if res := r.Call(context.Background(), echo.Name, args); res.IsError || res.Text != "hello" {
				b.Fatalf("registry call: %+v", res)
			}
		})
	}
	cs := bareSession(b, bin, "-marker", "agentls-bench-bare")
	params := &sdk.CallToolParams{Name: "echo", Arguments: args}
	baseline := func() time.Duration {
		return bench.Timed(func() {
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError {
				b.Fatalf("bare call: %v %+v", err, res)
			}
		})
	}
	bench.Pair(100, subject, baseline) // warm both paths
	b.Run("calls", func(b *testing.B) {
		subj, base := bench.Pair(b.N, subject, baseline)
		bench.ReportDurations(b, "", subj, base)
	})
}

// BenchmarkParallelConnect is figure 2 and its scaling: n fault servers
// that each take 300 ms to answer the handshake, connected by the
// registry (Start until nothing is connecting), against one such server.
// Connects are parallel, so the goal is a ratio ≤ 1.3 at 10 servers; the
// larger counts show how it grows.
func BenchmarkParallelConnect(b *testing.B) {
	bin := testenv.GoBinary(b, "./internal/faultserver")
	dir := b.TempDir()
	// cpu is the CPU time this process and its reaped children used, the
	// second telling how much of a large connect is the servers' own start.
	cpu := func() (self, children time.Duration) {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
		return self, time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var selfCPU, childCPU time.Duration
	connect := func(n int) time.Duration {
		servers := make([]config.Server, n)
		for i := range servers {
			servers[i] = benchServer(bin, fmt.Sprintf("s%03d", i), dir, "-handshake-delay", "300ms")
		}
		r := mcp.NewRegistry(servers, mcp.Options{})
		self0, child0 := cpu()
		defer func() {
			r.Close()
			self1, child1 := cpu()
			selfCPU += self1 - self0
			childCPU += child1 - child0
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		start := time.Now()
		r.Start(ctx)
		r.Wait(ctx)
		d := time.Since(start)
		for _, s := range r.Servers() {
			if s.State != mcp.Connected {
				b.Fatalf("%d servers: %s: %s %s", n, s.Name, s.State, s.Error)
			}
		}
		return d
	}
	for _, n := range []int{10, 50, 100} {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) {
			var self, child time.Duration
			subj, base := bench.Pair(b.N,
				func() time.Duration {
					selfCPU, childCPU = 0, 0
					d := connect(n)
					self, child = self+selfCPU, child+childCPU
					return d
				},
				func() time.Duration { return connect(1) })
			s, bs := bench.Millis(bench.Median(subj)), bench.Millis(bench.Median(base))
			bench.ReportPair(b, "", bench.UnitMillis, s, bs)
			// Time per server beyond the first: flat means linear or better.
			b.ReportMetric((s-bs)/float64(n-1), "ms-per-extra-server")
			// CPU per server, ours and the server processes' (start, handshake,
			// exit): with 2 cores, n servers cannot connect faster than
			// n × (ours + theirs) / 2 however parallel the registry is.
			b.ReportMetric(bench.Millis(self)/float64(b.N*n), "own-cpu-ms-per-server")
			b.ReportMetric(bench.Millis(child)/float64(b.N*n), "server-cpu-ms-per-server")
		})
	}
}

// BenchmarkConfinedConnect is figure 2 with confined servers: 10 fault
// servers with a 300 ms handshake as a repository's servers (workspace
// tier, confined by the kernel by default: each starts through the
// agentls-sandbox launcher, gets its state folder made and its policy applied)
// against the same 10 as the user's own (unconfined), connected by the
// registry until nothing is connecting. Goal: ratio ≤ 1.2.
func BenchmarkConfinedConnect(b *testing.B) {
	if s := sandbox.Supported(); !s.Filesystem {
		testenv.Missing(b, "Landlock ("+s.String()+")", "run on Linux 5.13 or later with Landlock enabled")
	}
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	// The launcher the installed agentls starts (this test binary has
	// none beside it; re-executing it would measure the test binary).
	if err := sandbox.UseLauncher(testenv.SandboxLauncher(b)); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sandbox.UseLauncher("") })
	bin := testenv.GoBinary(b, "./internal/faultserver")
	ws := b.TempDir()
	connect := func(origin config.Origin) time.Duration {
		servers := make([]config.Server, 10)
		for i := range servers {
			servers[i] = benchServer(bin, fmt.Sprintf("s%03d", i), ws, "-handshake-delay", "300ms")
			servers[i].Origin, servers[i].WorkspaceRoot = origin, ws
		}
		r := mcp.NewRegistry(servers, mcp.Options{Gate: func(s config.Server) (mcp.State, config.Server) { return "", s }})
		defer r.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		start := time.Now()
		r.Start(ctx)
		r.Wait(ctx)
		d := time.Since(start)
		for _, s := range r.Servers() {
			if s.State != mcp.Connected {
				b.Fatalf("%s server %s: %s %s", origin, s.Name, s.State, s.Error)
			}
			if confined := strings.Contains(s.Sandbox, "confined by the kernel"); confined != (origin == config.Workspace) {
				b.Fatalf("%s server %s: sandbox %q", origin, s.Name, s.Sandbox)
			}
		}
		return d
	}
	b.Run("servers=10", func(b *testing.B) {
		subj, base := bench.Pair(b.N,
			func() time.Duration { return connect(config.Workspace) },
			func() time.Duration { return connect(config.User) })
		bench.ReportPair(b, "", bench.UnitMillis, bench.Millis(bench.Median(subj)), bench.Millis(bench.Median(base)))
	})
}

// BenchmarkSchemaTokens is figure 7: the per-turn token estimate of each
// reference server's tool block, as the server list shows it, against the
// same estimate over the server's own definitions as listed on a bare SDK
// session (what no client can send less than, short of dropping tools).
func BenchmarkSchemaTokens(b *testing.B) {
	node := testenv.Tool(b, "node")
	dir := b.TempDir()
	refs := map[string][]string{
		"everything": {testenv.NodeBin(b, "mcp-server-everything"), "stdio"},
		"filesystem": {testenv.NodeBin(b, "mcp-server-filesystem"), dir},
	}
	var servers []config.Server
	for name, args := range refs {
		s := benchServer(node, name, dir)
		s.Args = args
		servers = append(servers, s)
	}
	r := startRegistry(b, servers)
	for _, name := range []string{"everything", "filesystem"} {
		var info mcp.ServerInfo
		for _, s := range r.Servers() {
			if s.Name == name {
				info = s
			}
		}
		cs := bareSessionWith(b, &sdk.ClientOptions{
			//lint:ignore SA1019 roots is a client feature of MCP 2025-11-25, the version agentls speaks (and declares)
			Capabilities: &sdk.ClientCapabilities{RootsV2: &sdk.RootCapabilities{ListChanged: true},
				Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}},
			ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				return &sdk.ElicitResult{Action: "decline"}, nil
			}}, node, refs[name]...)
		raw := 0
		for t, err := range cs.Tools(context.Background(), nil) {
			if err != nil {
				b.Fatalf("%s: bare tools/list: %v", name, err)
			}
			schema, _ := json.Marshal(t.InputSchema)
			raw += mcp.EstimateTokens(t.Name, t.Description, schema)
		}
		b.Run("server="+name, func(b *testing.B) {
			// The loop is the estimate itself, so ns/op says what the
			// server list pays to compute it.
			tokens := 0
			for i := 0; i < b.N; i++ {
				tokens = 0
				for _, s := range r.Servers() {
					if s.Name == name {
						tokens = s.SchemaTokens
					}
				}
			}
			if tokens != info.SchemaTokens || tokens == 0 {
				b.Fatalf("%s: schemaTokens %d, then %d", name, info.SchemaTokens, tokens)
			}
			bench.ReportPair(b, "", bench.UnitTokens, float64(tokens), float64(raw))
			b.ReportMetric(float64(len(info.Tools)), "tools")
		})
	}
}

// BenchmarkToolsGeneration is what the agent pays per turn to learn whether
// the tool listing changed with 100 servers connected: reading the
// generation, against copying and sorting the whole listing.
func BenchmarkToolsGeneration(b *testing.B) {
	bin := testenv.GoBinary(b, "./internal/faultserver")
	dir := b.TempDir()
	var servers []config.Server
	for i := 0; i < 100; i++ {
		servers = append(servers, benchServer(bin, fmt.Sprintf("s%03d", i), dir))
	}
	r := startRegistry(b, servers)
	b.Run("generation", func(b *testing.B) {
		g := r.ToolsGeneration()
		for i := 0; i < b.N; i++ {
			if r.ToolsGeneration() != g {
				b.Fatal("an idle registry's generation moved")
			}
		}
	})
	b.Run("listing", func(b *testing.B) {
		n := len(r.Tools())
		for i := 0; i < b.N; i++ {
			if len(r.Tools()) != n {
				b.Fatal("an idle registry's listing changed")
			}
		}
		b.ReportMetric(float64(n), "tools")
	})
}

// BenchmarkRegistryHTTPCallVsBareSDK is figure 1 over Streamable HTTP: a
// Go MCP server (the official SDK's streamable handler) listening on
// 127.0.0.1 in this process, one echo call through the agent's path (the
// policy decides, the registry maps the name back, calls through its
// header-adding HTTP client, converts and caps) against the same call on a
// bare SDK session to the same server. Goal as for stdio: ratio ≤ 1.10 or
// under 50 µs added per call.
func BenchmarkRegistryHTTPCallVsBareSDK(b *testing.B) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "bench-http", Version: "1"}, nil)
	type echoIn struct {
		Text string `json:"text"`
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Returns its text.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
		})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)}
	go hs.Serve(ln)
	b.Cleanup(func() { hs.Close() })
	url := "http://" + ln.Addr().String() + "/mcp"

	r := startRegistry(b, []config.Server{{Name: "h", Origin: config.User, URL: url,
		ConnectTimeout: time.Minute, ListTimeout: time.Minute, CallTimeout: time.Minute}})
	tools := r.Tools()
	if len(tools) != 1 || tools[0].ServerTool != "echo" {
		b.Fatalf("tools = %+v, want the echo tool", tools)
	}
	echo := tools[0]
	pol := &trust.Policy{Rules: []config.PolicyRule{
		{Pattern: "h__*", Action: "ask", Origin: config.User},
		{Pattern: echo.Name, Action: "allow", Origin: config.User},
	}}
	info := trust.ToolInfo{Name: echo.Name, DefinitionHash: echo.DefinitionHash, ReadOnlyHint: true}
	args := json.RawMessage(`{"text":"hello"}`)
	subject := func() time.Duration {
		return bench.Timed(func() {
			if d := pol.ClassifyCall(info); d.Action != trust.Allow {
				b.Fatalf("policy says %s (%s), want allow", d.Action, d.Reason)
			}
			if res := r.Call(context.Background(), echo.Name, args); res.IsError || res.Text != "hello" {
				b.Fatalf("registry call: %+v", res)
			}
		})
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "bench-bare", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		b.Fatalf("bare SDK session over HTTP: %v", err)
	}
	b.Cleanup(func() { cs.Close() })
	params := &sdk.CallToolParams{Name: "echo", Arguments: args}
	baseline := func() time.Duration {
		return bench.Timed(func() {
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError {
				b.Fatalf("bare call: %v %+v", err, res)
			}
		})
	}
	bench.Pair(100, subject, baseline) // warm both paths (and their keep-alive connections)
	b.Run("calls", func(b *testing.B) {
		subj, base := bench.Pair(b.N, subject, baseline)
		bench.ReportDurations(b, "", subj, base)
	})
}
