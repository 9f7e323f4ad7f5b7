package helix_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestHelixRewindByCodeAction: a task's write to main.go (through Helix's
// buffer) and to notes.txt (on disk) are allowed by code action; the user
// changes notes.txt; "agentls: Rewind to before turn 1" says notes.txt
// changed outside agentls and restores nothing; "... overwriting them"
// puts the buffer back through workspace/applyEdit (main.go on disk never
// written; u brings the agent's text back) and notes.txt byte for byte.
func TestHelixRewindByCodeAction(t *testing.T) {
	input, _ := json.Marshal(map[string]string{"path": "main.go", "content": rewritten})
	w := startHelix(t, original,
		modeltest.Turn{Text: "I will add Sum.", ToolCalls: []modeltest.ToolCall{
			{ID: "call_1", Name: "write_file", Input: string(input)},
			{ID: "call_2", Name: "write_file", Input: `{"path":"notes.txt","content":"notes: by the agent\n"}`},
		}},
		modeltest.Turn{Text: "Added Sum."},
	)
	notes := filepath.Join(w.ws, "notes.txt")
	writeFile(t, notes, "notes: before\n")
	scr := w.scr
	scr.pickCodeAction(regexp.MustCompile(`^agentls: Run "add a function Sum`), 30*time.Second)
	// Each card by its file: the second comes once the first is answered,
	// and a menu opened before then still lists the first.
	scr.pickCodeAction(regexp.MustCompile(`^agentls: Allow once: Overwrite \S*main\.go\?`), 30*time.Second)
	scr.pickCodeAction(regexp.MustCompile(`^agentls: Allow once: Overwrite \S*notes\.txt\?`), 30*time.Second)
	scr.waitFor(regexp.MustCompile(`func Sum\(xs \[\]int\) int \{`), 20*time.Second, "the edit in the buffer")
	waitRequests(t, w.model, 2, 20*time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for b, _ := os.ReadFile(notes); string(b) != "notes: by the agent\n"; b, _ = os.ReadFile(notes) {
		if time.Now().After(deadline) {
			t.Fatalf("notes.txt is %q, want the agent's write", b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	writeFile(t, notes, "notes: the user's own\n")

	scr.pickCodeAction(regexp.MustCompile(`^agentls: Rewind to before turn 1: add a function Sum`), 30*time.Second)
	scr.waitFor(regexp.MustCompile(`would overwrite 1 file\(s\) changed outside agentls`), 15*time.Second, "the message naming the changed file")
	if b, _ := os.ReadFile(notes); string(b) != "notes: the user's own\n" {
		t.Fatalf("a rewind that was to ask first changed notes.txt to %q", b)
	}
	if scr := scr.capture(); !strings.Contains(scr, "func Sum(") {
		t.Fatalf("a rewind that was to ask first changed the buffer:\n%s", scr)
	}
	scr.pickCodeAction(regexp.MustCompile(`^agentls: Rewind to before turn 1, overwriting them`), 30*time.Second)
	scr.waitFor(regexp.MustCompile(`agent: add a function Sum`), 15*time.Second, "the buffer back as before the turn")
	deadline = time.Now().Add(10 * time.Second)
	for b, _ := os.ReadFile(notes); string(b) != "notes: before\n"; b, _ = os.ReadFile(notes) {
		if time.Now().After(deadline) {
			t.Fatalf("notes.txt after the rewind is %q, want its bytes before the turn", b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if b, _ := os.ReadFile(w.file); string(b) != original {
		t.Errorf("main.go on disk changed:\n%s", b)
	}
	scr.escape()
	scr.keys("u")
	scr.waitFor(regexp.MustCompile(`func Sum\(xs \[\]int\) int \{`), 10*time.Second, "undo to bring the agent's text back")
	quit(t, scr)
}
