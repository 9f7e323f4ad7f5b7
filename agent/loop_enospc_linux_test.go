package agent

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// smallDisk mounts a 256 KiB tmpfs for the test (root only: the kernel
// refuses the mount otherwise, and the test says so and skips; under
// CI=true, which runs as root, it fails).
func smallDisk(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		testenv.Missing(t, "a small tmpfs to fill", fmt.Sprintf("mounting one needs root or CAP_SYS_ADMIN: %v", err))
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes a file until the disk is full, then frees leave bytes.
func fill(t *testing.T, dir string, leave int) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("x"), 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	fi, _ := f.Stat()
	if err := f.Truncate(fi.Size() - int64(leave)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

// TestSessionDiskFullLosesNoTurn fills the state folder's disk while a turn
// is saved: the task fails saying why, the session file keeps exactly its
// whole lines, and once space is back every earlier turn is sent.
func TestSessionDiskFullLosesNoTurn(t *testing.T) {
	disk := smallDisk(t)
	f := newFixture(t, "anthropic", func(o *Options) { o.StateDir = disk })
	f.model.Script(modeltest.Turn{Text: "answer-1"}, modeltest.Turn{Text: "answer-2"})
	r1 := f.run(t, RunRequest{Prompt: "prompt-1"}, TaskIO{})
	if r1.StopReason != "end_turn" {
		t.Fatalf("first turn: %+v", r1)
	}
	path := f.core.sessions.Path(r1.SessionID)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Less room than the prompt's line: the write is cut mid-line.
	filler := fill(t, disk, 8<<10)
	big := "prompt-2 " + strings.Repeat("y", 64<<10)
	r2 := f.run(t, RunRequest{Prompt: big, SessionID: r1.SessionID}, TaskIO{})
	if r2.StopReason != "error" || !strings.Contains(r2.Error, "no space left") || !strings.Contains(r2.Error, "not saved") {
		t.Fatalf("turn on a full disk: %+v, want an error saying the disk is full and nothing was saved", r2)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatalf("the session file changed on a failed write:\nbefore %q\nafter  %q", before, after)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	r3 := f.run(t, RunRequest{Prompt: "prompt-3", SessionID: r1.SessionID}, TaskIO{})
	if r3.StopReason != "end_turn" {
		t.Fatalf("turn after space is back: %+v", r3)
	}
	reqs := f.model.Requests()
	body := string(reqs[len(reqs)-1].Body)
	for _, want := range []string{"prompt-1", "answer-1", "prompt-3"} {
		if !strings.Contains(body, want) {
			t.Errorf("the request after the disk-full turn lacks %q", want)
		}
	}
	if _, err := os.Stat(f.core.sessions.AsidePath(r1.SessionID)); err == nil {
		t.Errorf("a side file was written: the failed write left a partial line")
	}
}
