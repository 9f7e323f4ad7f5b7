package tools

import (
	"context"
	"sync"
	"testing"

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
func (w *testWorkspace) WriteFile(_ context.Context, p string, _ Snapshot, text string) (bool, error) {
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

func writeFileT(t *testing.T, path, text string) { t.Helper(); testenv.WriteFile(t, path, text) }

func sleeper(t *testing.T, marker string) string { t.Helper(); return testenv.Sleeper(t, marker) }

func waitProcesses(t *testing.T, marker string, n int) bool {
	t.Helper()
	return testenv.WaitProcesses(t, marker, n)
}

// modeIs is an Env.Mode that is always m.
func modeIs(m wire.Mode) func() wire.Mode { return func() wire.Mode { return m } }
