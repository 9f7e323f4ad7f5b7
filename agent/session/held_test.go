package session

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model"
)

func userText(s string) model.Message {
	return model.Message{Role: "user", Content: []model.Block{{Type: "text", Text: s}}}
}

// A turn's appends go through one open file each, and an append after the
// file was replaced under it (index.log folded away, a repair's rename)
// lands in the file the path names now, never in the one nobody reads.
func TestAppenderHoldsItsFilesAndFollowsAReplacedOne(t *testing.T) {
	s := NewStore(t.TempDir(), "/w")
	id := NewID()
	a := s.Appender(id)
	defer a.Close()
	if err := a.Append(userText("one")); err != nil {
		t.Fatal(err)
	}
	jsonl, log := a.jsonl.f, a.indexLog.f
	if jsonl == nil || log == nil {
		t.Fatalf("after an append the Appender holds session file %v and index.log %v, want both open", jsonl, log)
	}
	for i := range 9 {
		if err := a.Append(model.Message{Role: "assistant", Content: []model.Block{{Type: "text", Text: fmt.Sprint("answer ", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	if a.jsonl.f != jsonl || a.indexLog.f != log {
		t.Error("ten appends of one turn opened the session file or index.log again, want each opened once")
	}

	// A listing folds index.log into index.json and removes it.
	if err := os.Remove(s.IndexLogPath()); err != nil {
		t.Fatal(err)
	}
	if err := a.Append(userText("after the fold")); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(s.IndexLogPath())
	if err != nil || !strings.Contains(string(raw), id) {
		t.Errorf("index.log after it was removed and an append: %q, %v; want a new log with the session's record", raw, err)
	}
	// A repair renames a new file over the session file.
	if err := s.rewrite(id, []model.Message{userText("rewritten")}); err != nil {
		t.Fatal(err)
	}
	if err := a.Append(userText("after")); err != nil {
		t.Fatal(err)
	}
	msgs, err := ReadMessages(s.Path(id))
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Content[0].Text != "rewritten" || msgs[1].Content[0].Text != "after" {
		t.Errorf("the session file after the rename and an append holds %+v, want the rewritten message then the appended one", msgs)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if a.jsonl.f != nil || a.indexLog.f != nil {
		t.Error("Close left a file open")
	}
}

// The transcript holds its file from the first write; a rebuild renames a
// new one over it, and the writes after it go on in the new file.
func TestTranscriptHoldsItsFileAcrossARebuild(t *testing.T) {
	dir := t.TempDir()
	tr := OpenTranscript(dir, "s1")
	defer tr.Close()
	tr.Note("first")
	held := tr.held.f
	tr.Note("second")
	if held == nil || tr.held.f != held {
		t.Fatal("two writes did not go through one held file")
	}
	if err := tr.Rebuild([]model.Message{userText("hello")}, "a test"); err != nil {
		t.Fatal(err)
	}
	tr.Note("after the rebuild")
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(tr.Path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(raw)
	if strings.Contains(got, "> agentls: first") || !strings.Contains(got, "hello") || !strings.HasSuffix(got, "> agentls: after the rebuild\n") {
		t.Errorf("transcript after a rebuild and a note:\n%s\nwant the rebuilt history followed by the note", got)
	}
}
