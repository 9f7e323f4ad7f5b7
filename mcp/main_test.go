package mcp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"
	"go.uber.org/goleak"
)

// faultBin is internal/faultserver, built once for this test binary.
var faultBin string

func TestMain(m *testing.M) {
	sandbox.Hook() // the launcher of confined servers
	proc.Hook()
	if spec := os.Getenv(helperEnv); spec != "" {
		os.Exit(runHelper(spec))
	}
	dir, err := os.MkdirTemp("", "agentls-faultserver-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	faultBin = filepath.Join(dir, "faultserver")
	build := exec.Command("go", "build", "-o", faultBin, "./internal/faultserver")
	build.Dir = testenv.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build ./internal/faultserver: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	testenv.RemoveBuilds()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines outlived the tests:", err)
			code = 1
		}
	}
	os.Exit(code)
}

var markerSeq atomic.Int64

// newMarker is a string unique to this test, put in a server's arguments so
// the process table can be searched for it.
func newMarker(t testing.TB) string {
	clean := regexp.MustCompile(`[^a-zA-Z0-9]+`).ReplaceAllString(t.Name(), "_")
	return fmt.Sprintf("mcptest_%d_%d_%s", os.Getpid(), markerSeq.Add(1), clean)
}

// faultServer is a user-tier config entry for the fault server with flags.
// Timers are short; tests that exercise a timer set it themselves.
func faultServer(t testing.TB, name string, flags ...string) config.Server {
	return config.Server{
		Name: name, Origin: config.User, Command: faultBin,
		Args: append(flags, "-marker", newMarker(t)), Cwd: t.TempDir(),
		ConnectTimeout: 20 * time.Second, ListTimeout: 20 * time.Second, CallTimeout: 20 * time.Second,
	}
}

// markerOf is the marker argument of a config entry made by faultServer.
func markerOf(s config.Server) string {
	for i, a := range s.Args {
		if a == "-marker" && i+1 < len(s.Args) {
			return s.Args[i+1]
		}
	}
	for _, a := range s.Args {
		if strings.HasPrefix(a, "mcptest_") {
			return a
		}
	}
	return ""
}

// startRegistry starts a registry, waits until nothing is connecting, and
// at cleanup closes it and proves no process of its servers survived.
func startRegistry(t testing.TB, servers []config.Server, opts Options) *Registry {
	t.Helper()
	r := NewRegistry(servers, opts)
	t.Cleanup(func() {
		r.Close()
		for _, s := range servers {
			if m := markerOf(s); m != "" {
				testenv.WaitNoProcesses(t, m, 10*time.Second)
			}
		}
	})
	r.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r.Wait(ctx)
	return r
}

// serverInfo is one row of r.Servers().
func serverInfo(t testing.TB, r *Registry, name string) ServerInfo {
	t.Helper()
	for _, s := range r.Servers() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q in the list", name)
	return ServerInfo{}
}

// eventually polls cond until it holds, failing after a generous guard. The
// guard is not what is tested: it only keeps a broken build from hanging.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func call(t testing.TB, r *Registry, name, args string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return r.Call(ctx, name, []byte(args))
}

func mustCall(t testing.TB, r *Registry, name, args, want string) {
	t.Helper()
	res := call(t, r, name, args)
	if res.IsError || res.Text != want {
		t.Fatalf("%s(%s) = %+v, want text %q", name, args, res, want)
	}
}

// v2Server is the TypeScript SDK v2 test server (tools/node/mcp-v2-server.mjs),
// which speaks 2026-07-28; every request it gets is appended to log.
func v2Server(t testing.TB, name, log string) config.Server {
	script := testenv.MCPv2Server(t)
	return config.Server{Name: name, Origin: config.User, Command: testenv.Tool(t, "node"),
		Args: []string{script, newMarker(t)}, Cwd: t.TempDir(), Env: map[string]string{"MCP_V2_LOG": log},
		ConnectTimeout: 30 * time.Second, ListTimeout: 20 * time.Second, CallTimeout: 20 * time.Second}
}
