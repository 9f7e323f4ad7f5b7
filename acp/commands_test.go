package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestRewindAndRulesAsSlashCommands drives /rewind and /rules with the
// official ACP SDK client, whose fs/write_text_file writes its buffers: two
// turns write a.txt and b.txt through the editor, the user types in b.txt
// while the second turn's card is open; /rewind lists both turns; /rewind 1
// asks with a permission naming b.txt (reject keeps everything, allow
// overwrites), and the files go back through fs/write_text_file as before
// turn 1; the next prompt continues from there. A command allowed always
// is listed by /rules and forgotten by /rules forget ID.
func TestRewindAndRulesAsSlashCommands(t *testing.T) {
	w := newWorld(t, "")
	a, b := filepath.Join(w.root, "a.txt"), filepath.Join(w.root, "b.txt")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, []byte(filepath.Base(f)+": before\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{
			{ID: "w1", Name: "write_file", Input: `{"path":"a.txt","content":"a.txt: turn 1\n"}`},
			{ID: "w2", Name: "write_file", Input: `{"path":"b.txt","content":"b.txt: turn 1\n"}`},
		}},
		modeltest.Turn{Text: "one"},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w3", Name: "write_file", Input: `{"path":"a.txt","content":"a.txt: turn 2\n"}`}}},
		modeltest.Turn{Text: "two"},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "run_command", Input: `{"command":"echo acp-rule"}`}}},
		modeltest.Turn{Text: "ran"},
	)
	p := plan{Buffers: map[string]string{a: "a.txt: before\n", b: "b.txt: before\n"}, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "waitCommand", Text: "rewind"},
		{Op: "prompt", Text: "first turn", Answers: []string{"allow_once", "allow_once"}},
		{Op: "prompt", Text: "second turn", AnswersWithChanges: []answerWithChanges{{Option: "allow_once", Buffers: map[string]string{b: "b.txt: typed by the user\n"}}}},
		{Op: "prompt", Text: "/rewind"},
		{Op: "prompt", Text: "/rewind 1", Answers: []string{"reject_once"}},
		{Op: "prompt", Text: "/rewind 1", Answers: []string{"allow_once"}},
		{Op: "prompt", Text: "run it", Answers: []string{"allow_always"}},
		{Op: "prompt", Text: "/rules"},
		{Op: "prompt", Text: "/rules forget command: echo acp-rule"},
		{Op: "prompt", Text: "/rules"},
	}}
	p.FS.Read, p.FS.Write = true, true
	out := w.run(p)
	for i, s := range out.Steps {
		if s.Error != nil {
			t.Fatalf("step %d (%s): %+v", i, s.Op, s.Error)
		}
	}
	var announced map[string]string
	for _, u := range out.Updates {
		if u.Update.SessionUpdate == updateAvailableCommands {
			announced = map[string]string{}
			for _, c := range u.Update.AvailableCommands {
				if c.Input != nil {
					announced[c.Name] = c.Input.Hint
				}
			}
		}
	}
	if !strings.Contains(announced["rewind"], "turn number") || !strings.Contains(announced["rules"], "forget RULE-ID") {
		t.Errorf("available commands with input: %v, want rewind and rules with their hints", announced)
	}
	text := out.text()
	for _, want := range []string{
		"1. first turn (2 file(s))\n2. second turn (1 file(s))",
		"Kept the files changed outside agentls; nothing was rewound.",
		"rewound to before turn 1: 2 file(s) restored",
		"- restored " + a, "- restored " + b,
		"- command: echo acp-rule: run `echo acp-rule` without asking",
		"Forgot 1 rule(s): command: echo acp-rule",
		"No saved rules in this workspace",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the agent's messages lack %q:\n%s", want, text)
		}
	}
	// The permissions: turn 1's two writes, turn 2's, the rewind's twice,
	// the command's.
	if len(out.Permissions) != 6 {
		t.Fatalf("%d permissions, want 6", len(out.Permissions))
	}
	for _, i := range []int{3, 4} {
		perm := out.Permissions[i]
		var card strings.Builder
		for _, c := range perm.ToolCall.contents() {
			if c.Content != nil {
				card.WriteString(c.Content.Text)
			}
		}
		title := ""
		for _, u := range out.Updates {
			if u.Update.SessionUpdate == updateToolCall && u.Update.ToolCallID == perm.ToolCall.ToolCallID {
				title = u.Update.Title
			}
		}
		if title != "Overwrite files changed outside agentls?" || !strings.Contains(card.String(), b) || strings.Contains(card.String(), a+"\n") {
			t.Errorf("the rewind's permission %d (%s): %q %q, want it titled and naming b.txt only", i, perm.ToolCall.ToolCallID, title, card.String())
		}
	}
	var restores []string
	for _, wr := range out.Writes {
		restores = append(restores, filepath.Base(wr.Path)+"="+wr.Content)
	}
	want := []string{"a.txt=a.txt: turn 1\n", "b.txt=b.txt: turn 1\n", "a.txt=a.txt: turn 2\n", "a.txt=a.txt: before\n", "b.txt=b.txt: before\n"}
	if strings.Join(restores, "|") != strings.Join(want, "|") {
		t.Errorf("fs/write_text_file calls %q, want %q: the rewind goes through the editor, once, after the user said overwrite", restores, want)
	}
	for _, f := range []string{a, b} {
		if disk, _ := os.ReadFile(f); string(disk) != filepath.Base(f)+": before\n" {
			t.Errorf("%s on disk is %q: the writes were to go to the editor only", f, disk)
		}
	}
	reqs := w.model.ModelRequests("openai")
	if last := string(reqs[4].Body); strings.Contains(last, "first turn") || !strings.Contains(last, "run it") {
		t.Errorf("the prompt after the rewind carries the forked-away turns:\n%s", last)
	}
}
