package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testenv"
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
func (w *testWorkspace) WriteFile(_ context.Context, p, text string) (bool, error) {
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

func writeFileT(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sleeper is a link to sleep whose path carries marker, so the process
// table shows which processes a test started.
func sleeper(t *testing.T, marker string) string {
	t.Helper()
	real, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep on PATH")
	}
	p := filepath.Join(t.TempDir(), "sleep-"+marker)
	if err := os.Symlink(real, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// waitProcesses waits until n processes match marker (bounded). It only
// reports (t.Errorf), so goroutines other than the test's may call it.
func waitProcesses(t *testing.T, marker string, n int) bool {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(testenv.ProcessesMatching(marker)) < n {
		if time.Now().After(deadline) {
			t.Errorf("%d processes matching %q never appeared", n, marker)
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
