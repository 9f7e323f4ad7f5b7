package agent

import (
	"encoding/json"
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
	if _, err := os.Stat(s.IndexPath()); err != nil {
		t.Fatalf("no index next to the sessions: %v", err)
	}

	// The listing does not read the history: the file's bytes replaced
	// (same size, same time) change nothing it says.
	path := s.Path(first.SessionID)
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
	if err := os.Remove(s.IndexPath()); err != nil {
		t.Fatal(err)
	}
	check("index removed", "prompt-1", 4)
	if _, err := os.Stat(s.IndexPath()); err != nil {
		t.Errorf("the index was not written again: %v", err)
	}
	// A garbage index is rebuilt too.
	if err := os.WriteFile(s.IndexPath(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	check("index garbage", "prompt-1", 4)
}

// TestSessionIndexLogIsACheckedCache: a saved message appends one record to
// index.log (the snapshot is written by listings, not by turns); a record
// torn by a crash is skipped and its session read again; the record after
// a torn one is read on its own line; and a session changed behind this
// process's back is never credited with this process's count.
func TestSessionIndexLogIsACheckedCache(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	f.model.Script(modeltest.Turn{Text: "one"}, modeltest.Turn{Text: "two"}, modeltest.Turn{Text: "three"}, modeltest.Turn{Text: "four"})
	first := f.run(t, RunRequest{Prompt: "first prompt"}, TaskIO{})
	s := f.core.sessions
	check := func(what, title string, turns int) {
		t.Helper()
		list, err := f.core.Sessions()
		if err != nil || len(list) != 1 || list[0].Title != title || list[0].Turns != turns || list[0].SessionID != first.SessionID {
			t.Fatalf("%s: sessions = %+v (%v), want %q with %d turns", what, list, err, title, turns)
		}
	}
	if _, err := os.Stat(s.IndexPath()); err == nil {
		t.Errorf("a turn wrote the snapshot index.json; turns append to index.log")
	}
	raw, err := os.ReadFile(s.IndexLogPath())
	if err != nil || strings.Count(string(raw), "\n{") != 2 {
		t.Fatalf("index.log after a turn of two messages = %q (%v), want two records", raw, err)
	}

	// The last record cut in half (a crash mid-write): skipped, and the
	// one before it no longer matches the file, so the file is read.
	if err := os.WriteFile(s.IndexLogPath(), raw[:len(raw)-20], 0o600); err != nil {
		t.Fatal(err)
	}
	check("last record torn", "first prompt", 1)
	if _, err := os.Stat(s.IndexLogPath()); err == nil {
		t.Errorf("the listing left index.log; it folds it into index.json")
	}

	// A torn record with no newline, then a turn: its records start on
	// lines of their own and are believed (the history is made unreadable
	// at the same size and time, so only the index can say 2 turns).
	if err := os.WriteFile(s.IndexLogPath(), []byte(`{"id":"`+first.SessionID+`","title":"to`), 0o600); err != nil {
		t.Fatal(err)
	}
	f.run(t, RunRequest{Prompt: "second prompt", SessionID: first.SessionID}, TaskIO{})
	path := s.Path(first.SessionID)
	st, _ := os.Stat(path)
	if err := os.WriteFile(path, []byte(strings.Repeat("x", int(st.Size()))), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	check("records after a torn one", "first prompt", 2)

	// Another agentls rewrites the session (four turns); this process's
	// next turn must not add to its own count of 2 but leave the entry to
	// be read again: 4 + 1.
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, m := range fourTurns() {
		line, _ := json.Marshal(m)
		lines = append(lines, string(line))
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.run(t, RunRequest{Prompt: "fifth prompt", SessionID: first.SessionID}, TaskIO{})
	check("changed by another agentls, then a turn", "prompt-1", 5)
}
