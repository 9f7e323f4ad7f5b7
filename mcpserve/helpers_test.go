package mcpserve

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// world is one test's workspace, state folder and agent core.
type world struct {
	ws, state string
	core      *agent.Core
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{ws: t.TempDir(), state: filepath.Join(t.TempDir(), "agentls")}
	w.ws, _ = filepath.EvalSymlinks(w.ws)
	testenv.WriteFile(t, filepath.Join(w.ws, "greeting.txt"), "say hello\n")
	testenv.WriteFile(t, filepath.Join(w.ws, ".git-credentials"), "https://u:p@example.com\n")
	core, err := agent.New(agent.Options{Config: &config.Config{}, StateDir: w.state, Root: w.ws, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(core.Close)
	w.core = core
	return w
}

// cards answers every card with opt and keeps what it was shown.
type cards struct {
	mu   sync.Mutex
	opt  string
	seen []wire.Approval
}

func (c *cards) RequestApproval(_ context.Context, a wire.Approval) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = append(c.seen, a)
	return c.opt, nil
}

func (c *cards) set(opt string) { c.mu.Lock(); c.opt = opt; c.mu.Unlock() }

func (c *cards) shown() []wire.Approval {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.seen)
}

// bearer adds the token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect is an official SDK client named name connected over t at
// revision version ("" = the SDK's newest).
func connect(t *testing.T, tr sdk.Transport, name, version string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, nil)
	cs, err := c.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s: %v", name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func toolNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// call calls a tool and returns its text and isError.
func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// agentlsCmd is the real agentls with args, its state and config in w.
func (w *world) agentlsCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(testenv.Agentls(t), args...)
	cmd.Dir = w.ws
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Dir(w.state), "AGENTLS_CONFIG="+filepath.Join(w.ws, "no-config.toml"))
	var stderr syncBuffer
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agentls %v stderr:\n%s", args, stderr.String())
		}
	})
	return cmd
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
