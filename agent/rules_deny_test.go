package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/wire"
)

// TestAlwaysDenyRefusesTheSameCallWithoutACard: a command's card (a
// dangerous one, that no allow rule could cover, and a shell pipeline) and
// a write's card offer reject_always naming the deny rule; once chosen, the
// same calls are refused without a card, in autopilot and auto-edit too,
// while a different command and another file still ask; the rules are
// listed, and revoking them makes the calls ask again.
func TestAlwaysDenyRefusesTheSameCallWithoutACard(t *testing.T) {
	f := newFixture(t, "anthropic", withStore)
	writeFileT(t, filepath.Join(f.dir, "keep.txt"), "keep\n")
	calls := func(n string) []modeltest.ToolCall {
		return []modeltest.ToolCall{
			{ID: "c" + n, Name: "run_command", Input: `{"command":"rm -f keep.txt"}`},
			{ID: "s" + n, Name: "run_command", Input: `{"command":"echo deny-me | cat","shell":true}`},
			{ID: "w" + n, Name: "write_file", Input: `{"path":"keep.txt","content":"overwritten\n"}`},
		}
	}
	f.model.Script(modeltest.Turn{Text: "1", ToolCalls: calls("1")}, modeltest.Turn{Text: "ok"})
	never := &answer{opt: string(wire.OptionRejectAlways)}
	sess := f.run(t, RunRequest{Prompt: "first"}, TaskIO{Approver: never}).SessionID
	cards := never.asked()
	wantRules := []string{"deny command: rm -f keep.txt", "deny command: (shell) echo deny-me | cat", "deny write: keep.txt"}
	if len(cards) != 3 {
		t.Fatalf("%d cards, want the two commands' and the write's", len(cards))
	}
	for i, c := range cards {
		o := c.Options[len(c.Options)-1]
		if o.Kind != wire.OptionRejectAlways || !strings.Contains(o.Name, strings.TrimPrefix(strings.SplitN(wantRules[i], ": ", 2)[1], "(shell) ")) {
			t.Errorf("card %d options %+v, want the last one reject_always naming %q", i, c.Options, wantRules[i])
		}
	}
	rules, err := f.core.Rules([]string{f.dir})
	if err != nil || len(rules) != 3 {
		t.Fatalf("rules = %+v, %v; want the three deny rules", rules, err)
	}
	var ids []string
	for _, r := range rules {
		ids = append(ids, r.ID)
		if !r.Deny {
			t.Errorf("rule %+v is not marked deny", r)
		}
	}
	if got, want := strings.Join(ids, "|"), "deny command: (shell) echo deny-me | cat|deny command: rm -f keep.txt|deny write: keep.txt"; got != want {
		t.Errorf("rule ids %q, want %q", got, want)
	}

	// The same calls again, in autopilot and in auto-edit: no card, refused.
	for _, mode := range []wire.Mode{wire.ModeAutopilot, wire.ModeAutoEdit} {
		if err := f.core.SetMode(sess, mode); err != nil {
			t.Fatal(err)
		}
		second := append(calls("2"), modeltest.ToolCall{ID: "o2", Name: "run_command", Input: `{"command":"echo other"}`},
			modeltest.ToolCall{ID: "x2", Name: "write_file", Input: `{"path":"other.txt","content":"x\n"}`})
		f.model.Script(modeltest.Turn{Text: "2", ToolCalls: second}, modeltest.Turn{Text: "ok"})
		once := &answer{opt: string(wire.OptionRejectOnce)}
		f.run(t, RunRequest{Prompt: "second", SessionID: sess}, TaskIO{Approver: once})
		reqs := f.model.Requests()
		res := resultsOf(reqs[len(reqs)-1], second)
		for i := 0; i < 3; i++ {
			if !res[i].IsError || !strings.Contains(res[i].Content, "refused by your rule for this workspace") {
				t.Errorf("%s: result %d %+v, want refused by the deny rule", mode, i, res[i])
			}
		}
		for _, a := range once.asked() {
			if a.Kind == wire.ApprovalWrite && strings.Contains(a.Detail, "keep.txt") || strings.Contains(strings.Join(a.Command, " "), "rm -f") || strings.Contains(a.Detail, "deny-me") {
				t.Errorf("%s: a card for a denied call: %+v", mode, a)
			}
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "keep.txt")); string(b) != "keep\n" {
		t.Errorf("keep.txt = %q, want it untouched", b)
	}

	for _, id := range ids {
		if _, err := f.core.RevokeRule([]string{f.dir}, id, ""); err != nil {
			t.Fatalf("RevokeRule(%q): %v", id, err)
		}
	}
	f.model.Script(modeltest.Turn{Text: "3", ToolCalls: calls("3")}, modeltest.Turn{Text: "ok"})
	again := &answer{opt: string(wire.OptionRejectOnce)}
	f.run(t, RunRequest{Prompt: "third"}, TaskIO{Approver: again})
	if n := len(again.asked()); n != 3 {
		t.Errorf("after revoking, %d cards, want the three calls to ask again", n)
	}
}
