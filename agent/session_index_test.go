package agent

import (
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestSessionListComesFromTheIndex: agent/sessions reads titles and turns
// from the index next to the session files, kept by every append, so it
// never reads a history; an index that is missing, or an entry whose file
// changed behind it (another agentls, a repair, an edit), is rebuilt.
func TestSessionListComesFromTheIndex(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	f.model.Script(modeltest.Turn{Text: "one"}, modeltest.Turn{Text: "two"})
	first := f.run(t, RunRequest{Prompt: "first prompt\nmore"}, TaskIO{})
	f.run(t, RunRequest{Prompt: "second prompt", SessionID: first.SessionID}, TaskIO{})
	s := f.core.sessions
	check := func(what, title string, turns int) {
		t.Helper()
		list, err := f.core.Sessions()
		if err != nil || len(list) != 1 || list[0].Title != title || list[0].Turns != turns || list[0].SessionID != first.SessionID {
			t.Fatalf("%s: sessions = %+v (%v), want %q with %d turns", what, list, err, title, turns)
		}
	}
	check("after two turns", "first prompt", 2)
	if _, err := os.Stat(s.indexPath()); err != nil {
		t.Fatalf("no index next to the sessions: %v", err)
	}

	// The listing does not read the history: the file's bytes replaced
	// (same size, same time) change nothing it says.
	path := s.path(first.SessionID)
	st, _ := os.Stat(path)
	if err := os.WriteFile(path, []byte(strings.Repeat("x", int(st.Size()))), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	check("history unreadable but unchanged in size and time", "first prompt", 2)

	// Changed behind the index: read again.
	storeLines(t, s, first.SessionID, fourTurns(), func(l []string) []string { return l })
	check("rewritten by someone else", "prompt-1", 4)

	// Missing index: rebuilt, and saved again.
	if err := os.Remove(s.indexPath()); err != nil {
		t.Fatal(err)
	}
	check("index removed", "prompt-1", 4)
	if _, err := os.Stat(s.indexPath()); err != nil {
		t.Errorf("the index was not written again: %v", err)
	}
	// A garbage index is rebuilt too.
	if err := os.WriteFile(s.indexPath(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	check("index garbage", "prompt-1", 4)
}
