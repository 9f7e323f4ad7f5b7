package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/wire"
)

// storeSession writes a session, its transcript and side files, last used
// age ago.
func storeSession(t *testing.T, f *fixture, id string, age time.Duration) {
	t.Helper()
	s := f.core.sessions
	if err := s.Append(id, user("prompt of "+id)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.AsidePath(id), session.TranscriptPath(f.state, id)} {
		writeFileT(t, p, "x\n")
	}
	when := time.Now().Add(-age)
	if err := os.Chtimes(s.Path(id), when, when); err != nil {
		t.Fatal(err)
	}
}

func sessionGone(f *fixture, id string) bool {
	for _, p := range []string{f.core.sessions.Path(id), f.core.sessions.AsidePath(id), session.TranscriptPath(f.state, id)} {
		if _, err := os.Stat(p); err == nil {
			return false
		}
	}
	return true
}

func TestRetentionDeletesTheOldestButNeverPinnedOrInUse(t *testing.T) {
	f := newFixture(t, "openai", func(o *Options) { o.Config.Sessions.Keep = 3 })
	for i := range 8 { // s0 the oldest ... s7 the newest
		storeSession(t, f, "s"+strconv.Itoa(i), time.Duration(8-i)*time.Hour)
	}
	if err := f.core.PinSession("s0", true); err != nil {
		t.Fatal(err)
	}
	unlock, err := f.core.sessionLock(t.Context(), "s1") // a task holds it
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	// Another agentls is in a turn of s2: its journal, its live pid.
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Skipf("no sleep to stand in for another agentls: %v", err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	writeFileT(t, f.core.sessions.JournalPath("s2"), `{"pid":`+strconv.Itoa(other.Process.Pid)+`,"size":0}`+"\n")

	deleted := f.core.retain(time.Now())
	slices.Sort(deleted)
	if !slices.Equal(deleted, []string{"s3", "s4"}) {
		t.Errorf("deleted %v, want s3 and s4: the newest 3 kept, the pinned s0, the held s1 and s2 (another agentls's turn) never deleted", deleted)
	}
	for i := range 8 {
		id := "s" + strconv.Itoa(i)
		if gone := sessionGone(f, id); gone != slices.Contains(deleted, id) {
			t.Errorf("%s: files gone = %v, deleted = %v", id, gone, slices.Contains(deleted, id))
		}
	}
	list, _ := f.core.Sessions()
	if len(list) != 6 || !slices.ContainsFunc(list, func(s wire.SessionInfo) bool { return s.SessionID == "s0" && s.Pinned }) {
		t.Errorf("agent/sessions after retention = %+v, want 6 with s0 pinned", list)
	}
}

func TestRetentionByAge(t *testing.T) {
	f := newFixture(t, "openai", func(o *Options) { o.Config.Sessions.MaxAge = 48 * time.Hour })
	storeSession(t, f, "fresh", time.Hour)
	storeSession(t, f, "stale", 72*time.Hour)
	storeSession(t, f, "stale-pinned", 72*time.Hour)
	if err := f.core.PinSession("stale-pinned", true); err != nil {
		t.Fatal(err)
	}
	if deleted := f.core.retain(time.Now()); !slices.Equal(deleted, []string{"stale"}) {
		t.Errorf("deleted %v, want only the unpinned session older than max_age", deleted)
	}
	if err := f.core.PinSession("stale-pinned", false); err != nil {
		t.Fatal(err)
	}
	if deleted := f.core.retain(time.Now()); !slices.Equal(deleted, []string{"stale-pinned"}) {
		t.Errorf("after unpinning: deleted %v, want the unpinned old session", deleted)
	}
	if err := f.core.PinSession("nope", true); err == nil {
		t.Errorf("pinning an unknown session did not fail")
	}
}

// Tasks without a sessionId each start a session; the folder stays within
// keep, the newest kept.
func TestTasksKeepTheSessionsFolderWithinKeep(t *testing.T) {
	f := newFixture(t, "openai", func(o *Options) { o.Config.Sessions.Keep = 2 })
	f.model.Answer(func(modeltest.Request) (modeltest.Turn, bool) { return modeltest.Turn{Text: "ok"}, true })
	var ids []string
	for range 5 {
		res := f.run(t, RunRequest{Prompt: "say ok"}, TaskIO{})
		ids = append(ids, res.SessionID)
	}
	files, _ := filepath.Glob(filepath.Join(f.core.sessions.Dir(), "*.jsonl"))
	if len(files) != 2 {
		t.Fatalf("session files %v, want 2 ([sessions] keep = 2)", files)
	}
	for _, id := range ids[3:] {
		if sessionGone(f, id) {
			t.Errorf("the newest session %s was deleted", id)
		}
	}
}
