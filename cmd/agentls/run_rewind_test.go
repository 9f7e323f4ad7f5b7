package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestRunRewind is `agentls run --rewind TURN`: two runs of a session
// change files; the user changes one since; without a terminal the rewind
// lists it, restores nothing and exits 5; on a real terminal it shows the
// card naming it, and answering y puts every file back as before turn 2
// and runs the prompt from there (the model sees turn 1 only). A turn the
// session lacks, or no session, is a usage error saying what to give.
func TestRunRewind(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	a, b := filepath.Join(e.ws, "a.txt"), filepath.Join(e.ws, "b.txt")
	os.WriteFile(a, []byte("a: the user's\n"), 0o644)
	e.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"a.txt","content":"a: turn 1\n"}`}}},
		modeltest.Turn{Text: "one"},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{
			{ID: "e1", Name: "edit_file", Input: `{"path":"a.txt","old_text":"turn 1","new_text":"turn 2"}`},
			{ID: "w2", Name: "write_file", Input: `{"path":"b.txt","content":"b: turn 2\n"}`},
		}},
		modeltest.Turn{Text: "two"},
		modeltest.Turn{Text: "three, from before turn 2"},
	)
	if code, _, errs := e.run(t, "--mode", "auto-edit", "first turn"); code != 0 {
		t.Fatalf("turn 1: exit %d\n%s", code, errs)
	}
	if code, _, errs := e.run(t, "--mode", "auto-edit", "--continue", "second turn"); code != 0 {
		t.Fatalf("turn 2: exit %d\n%s", code, errs)
	}
	os.WriteFile(b, []byte("b: the user's own change\n"), 0o644)

	code, _, errs := e.run(t, "--continue", "--rewind", "2")
	if code != exitUnasked || !strings.Contains(errs, "Overwrite files changed outside agentls?") || !strings.Contains(errs, b) || !strings.Contains(errs, "not a terminal") {
		t.Fatalf("--rewind without a terminal: exit %d, want %d naming %s:\n%s", code, exitUnasked, b, errs)
	}
	if got, _ := os.ReadFile(a); string(got) != "a: turn 2\n" {
		t.Fatalf("a refused rewind changed a.txt to %q", got)
	}

	term := onTerminal(t, e, "run --continue --rewind 2 "+shellQuote("third turn"), 200, 50)
	screen := term.wait("deny:", true)
	for _, want := range []string{"Overwrite files changed outside agentls?", "before turn 2 would overwrite 1 file(s)", b} {
		if !strings.Contains(screen, want) {
			t.Errorf("the rewind's card lacks %q:\n%s", want, screen)
		}
	}
	term.keys("y", "Enter")
	term.exitsWith0()
	screen = term.wait("rewound to before turn 2: 2 file(s) restored", true)
	if !strings.Contains(screen, "restored "+a) || !strings.Contains(screen, "restored "+b) {
		t.Errorf("the rewind does not say which files it restored:\n%s", screen)
	}
	if got, _ := os.ReadFile(a); string(got) != "a: turn 1\n" {
		t.Errorf("a.txt after the rewind is %q, want turn 1's", got)
	}
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Errorf("b.txt, created by turn 2, is still there: %v", err)
	}
	reqs := e.model.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "first turn") || strings.Contains(last, "second turn") || !strings.Contains(last, "third turn") {
		t.Errorf("the prompt after the rewind does not continue from before turn 2:\n%s", last)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--continue", "--rewind", "9"}, "bad turn 9"},
		{[]string{"--rewind", "1"}, "--rewind needs the session to rewind: --session ID or --continue"},
	} {
		if code, _, errs := e.run(t, tc.args...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("run %q: exit %d, want 2 saying %q:\n%s", tc.args, code, tc.want, errs)
		}
	}
}
