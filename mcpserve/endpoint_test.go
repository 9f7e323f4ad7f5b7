package mcpserve

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testenv"
)

// TestFindPicksTheLiveSessionOfTheFolder: the innermost live session
// holding the folder is found; a dead process's, another folder's and a
// file others may read are not.
func TestFindPicksTheLiveSessionOfTheFolder(t *testing.T) {
	w := newWorld(t)
	l := w.listen(t, nil)
	state, ws := w.state, w.ws
	sub := filepath.Join(ws, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tok := l.TokenFile
	outer := Endpoint{PID: os.Getpid(), URL: l.URL, TokenFile: tok, Socket: l.Socket, Folders: []string{ws}, Editor: "outer", Started: time.Now()}
	publish(t, state, outer)
	if e, err := Find(state, sub); err != nil || e.Editor != "outer" {
		t.Fatalf("Find(sub) = %+v, %v; want the session of its parent folder", e, err)
	}
	if tokText, err := outer.ReadToken(); err != nil || tokText != l.Token() {
		t.Errorf("ReadToken = %q, %v; want the listener's token", tokText, err)
	}
	// An endpoint with no socket (an older agentls's) is never used.
	publish(t, state, Endpoint{PID: os.Getppid(), URL: l.URL, TokenFile: tok, Folders: []string{sub}, Editor: "no socket", Started: time.Now()})
	if e, _ := Find(state, sub); e.Editor != "outer" {
		t.Errorf("Find picked %q, want the session with a socket", e.Editor)
	}
	if _, err := Find(state, t.TempDir()); !errors.Is(err, ErrNoEditor) {
		t.Errorf("Find(another folder) = %v, want ErrNoEditor", err)
	}
	// A dead process's file stays behind after a crash: never used.
	dead := deadPID(t)
	publish(t, state, Endpoint{PID: dead, URL: "http://127.0.0.1:2/mcp", TokenFile: tok, Socket: l.Socket, Folders: []string{sub}, Editor: "dead", Started: time.Now()})
	if e, _ := Find(state, sub); e.Editor != "outer" {
		t.Errorf("Find picked %q, want the live session, not a dead one's", e.Editor)
	}
	if runtime.GOOS == "windows" {
		return
	}
	if err := os.Chmod(tok, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := outer.ReadToken(); err == nil {
		t.Errorf("ReadToken read a token file others may read")
	}
	path := filepath.Join(Dir(state), fmt.Sprintf("%d.json", os.Getpid()))
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(state, sub); !errors.Is(err, ErrNoEditor) {
		t.Errorf("Find used an endpoint file others may write: %v", err)
	}
}

func publish(t *testing.T, state string, e Endpoint) {
	t.Helper()
	remove, err := Publish(state, e)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
}

// deadPID is the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(testenv.Tool(t, "true"))
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
