package agent

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestLiveSessionIsAnotherRunningProcesssNewest: a front finds the newest
// live session of another running process of the front it asks for; its
// own, one of a process that ended (whose file is removed) and one whose
// session file is gone do not count; Close removes this process's file.
func TestLiveSessionIsAnotherRunningProcesssNewest(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	f.model.Script(modeltest.Turn{Text: "one"}, modeltest.Turn{Text: "two"})
	s1 := f.run(t, RunRequest{Prompt: "first"}, TaskIO{}).SessionID
	s2 := f.run(t, RunRequest{Prompt: "second"}, TaskIO{}).SessionID
	if err := f.core.SetLive(s1, FrontChat, ""); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.core.LiveSession(FrontChat); ok {
		t.Error("this process's own live session was taken as another's")
	}
	// Another running process (a real one), and one that ended.
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	write := func(pid int, l Live) string {
		l.PID = pid
		b, _ := json.Marshal(l)
		p := filepath.Join(f.core.liveDir(), strconv.Itoa(pid)+".json")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	now := time.Now().UTC()
	write(other.Process.Pid, Live{SessionID: s2, Front: FrontLSP + " helix", At: now})
	stale := write(ended.Process.Pid, Live{SessionID: s1, Front: FrontLSP + " helix", At: now.Add(time.Minute)})
	if l, ok := f.core.LiveSession(FrontLSP); !ok || l.SessionID != s2 || l.Front != "lsp helix" {
		t.Errorf("LiveSession(lsp) = %+v, %v; want the running process's %s", l, ok, s2)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the ended process's live file is still there (%v)", err)
	}
	if l, ok := f.core.LiveSession(FrontChat); ok {
		t.Errorf("LiveSession(chat) = %+v, want none: the only other one is a language server's", l)
	}
	write(other.Process.Pid, Live{SessionID: "20260101-000000-deadbeef", Front: FrontLSP, At: now})
	if l, ok := f.core.LiveSession(FrontLSP); ok {
		t.Errorf("LiveSession(lsp) = %+v, want none: its session does not exist", l)
	}
	own := f.core.livePath()
	f.core.Close()
	if _, err := os.Stat(own); !os.IsNotExist(err) {
		t.Errorf("Close left this process's live file (%v)", err)
	}
}
