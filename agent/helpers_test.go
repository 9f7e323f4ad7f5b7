package agent

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/tools"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// testWorkspace is an editor stand-in for the Workspace interface: folders,
// open buffers, and whether it applies edits.
type testWorkspace struct {
	folders []string
	mu      sync.Mutex
	buffers map[string]string
	applies bool
	writes  []string // paths written through the "editor"
}

func (w *testWorkspace) Folders() []string { return w.folders }
func (w *testWorkspace) OpenText(p string) (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.buffers[p]
	return s, ok
}
func (w *testWorkspace) WriteFile(_ context.Context, p string, _ tools.Snapshot, text string) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.applies {
		return false, nil
	}
	if w.buffers == nil {
		w.buffers = map[string]string{}
	}
	w.buffers[p] = text
	w.writes = append(w.writes, p)
	return true, nil
}

// events records a task's events.
type events struct {
	mu  sync.Mutex
	all []wire.Event
	on  func(wire.Event)
}

func (e *events) Event(ev wire.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	on := e.on
	e.mu.Unlock()
	if on != nil {
		on(ev)
	}
}

func (e *events) list() []wire.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]wire.Event(nil), e.all...)
}

func (e *events) ofType(typ string) []wire.Event {
	var out []wire.Event
	for _, ev := range e.list() {
		if string(ev.Type) == typ {
			out = append(out, ev)
		}
	}
	return out
}

// approverFunc adapts a function to Approver.
type approverFunc func(ctx context.Context, a wire.Approval) (string, error)

func (f approverFunc) RequestApproval(ctx context.Context, a wire.Approval) (string, error) {
	return f(ctx, a)
}

// answer always picks one option and records what it was asked.
type answer struct {
	opt  string
	mu   sync.Mutex
	seen []wire.Approval
}

func (a *answer) RequestApproval(_ context.Context, ap wire.Approval) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen = append(a.seen, ap)
	return a.opt, nil
}

func (a *answer) asked() []wire.Approval {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]wire.Approval(nil), a.seen...)
}

// fixture is a Core talking to a fake model, over a temp workspace.
type fixture struct {
	core  *Core
	model *modeltest.Server
	dir   string // the workspace folder
	state string
	ws    *testWorkspace
}

func testConfig(url, format string) *config.Config {
	cfg := &config.Config{}
	// The fake model stands in for a model with a large window, so every
	// MCP tool is offered (an unknown name gets config's small default
	// window, under which the filesystem server's tools go behind
	// search_tools; toolsearch_test covers that).
	cfg.Model = config.Model{Provider: format, Name: "fake-model", BaseURL: url, APIKeyEnv: "AGENTLS_TEST_KEY", ContextWindow: 200000}
	if format == "openai" {
		cfg.Model.BaseURL = url + "/v1"
	}
	// The first turn waits for the MCP servers; on a loaded machine npx
	// takes longer than the default 5 s to start them, and these tests are
	// about what a call does, not about how long the first turn waits
	// (hotplug_test sets its own). The wait ends as soon as they connect.
	cfg.MCP.StartupWait = 90 * time.Second
	return cfg
}

func newFixture(t *testing.T, format string, tweak func(*Options)) *fixture {
	t.Helper()
	srv := modeltest.New(t)
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	state := t.TempDir()
	cfg := testConfig(srv.URL(), format)
	prov, err := model.New(cfg.Model, func(k string) string {
		if k == "AGENTLS_TEST_KEY" {
			return "test"
		}
		return ""
	})
	if err != nil {
		t.Fatalf("model.New: %v", err)
	}
	opts := Options{Config: cfg, Provider: prov, StateDir: state, Root: dir, Logf: t.Logf}
	if tweak != nil {
		tweak(&opts)
	}
	c, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(c.Close)
	return &fixture{core: c, model: srv, dir: dir, state: state, ws: &testWorkspace{folders: []string{dir}}}
}

// run starts a task and waits for it (bounded, so a hang fails loudly).
func (f *fixture) run(t *testing.T, req RunRequest, io TaskIO) wire.RunResult {
	t.Helper()
	if io.Workspace == nil {
		io.Workspace = f.ws
	}
	task := f.core.Start(req, io)
	return wait(t, task)
}

func wait(t *testing.T, task *Task) wire.RunResult {
	t.Helper()
	select {
	case <-task.Done():
	case <-time.After(60 * time.Second):
		t.Fatalf("task %s did not end", task.ID)
	}
	return task.Result()
}

func writeFileT(t *testing.T, path, text string) { t.Helper(); testenv.WriteFile(t, path, text) }

func sleeper(t *testing.T, marker string) string { t.Helper(); return testenv.Sleeper(t, marker) }

func waitProcesses(t *testing.T, marker string, n int) bool {
	t.Helper()
	return testenv.WaitProcesses(t, marker, n)
}

// builtinDefs are the built-in tool definitions, sorted by name.
func builtinDefs() []model.ToolDef {
	var defs []model.ToolDef
	for _, b := range tools.Builtins() {
		defs = append(defs, b.Def())
	}
	return defs
}
