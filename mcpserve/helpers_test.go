package mcpserve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/mcpserve/mcpservetest"
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

func connect(t *testing.T, tr sdk.Transport, name, version string) *sdk.ClientSession {
	t.Helper()
	return mcpservetest.Connect(t, tr, name, version, nil)
}

func toolNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	return mcpservetest.Tools(t, cs)
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	return mcpservetest.Call(t, cs, name, args)
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
