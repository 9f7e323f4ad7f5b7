package acp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/trust"
)

// TestAlwaysAllowAndAlwaysDenyThroughTheOfficialClient: through the
// official ACP client library (its schema check sees every message), a
// command's and a write's permission requests offer allow_always and
// reject_always; a client that picks them saves the rules, and in the
// next prompt the same command runs and a write in the same folder lands
// without a permission request, while the denied command and file are
// refused without one and stay undone.
func TestAlwaysAllowAndAlwaysDenyThroughTheOfficialClient(t *testing.T) {
	w := newWorld(t, "")
	keep := filepath.Join(w.root, "keep.txt")
	if err := os.WriteFile(keep, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := func(n, file string) []modeltest.Turn {
		return []modeltest.Turn{
			{ToolCalls: []modeltest.ToolCall{{ID: "ok" + n, Name: "run_command", Input: `{"command":"echo acp-always-ran"}`}}},
			{ToolCalls: []modeltest.ToolCall{{ID: "wr" + n, Name: "write_file", Input: `{"path":"src/` + file + `","content":"written ` + n + `\n"}`}}},
			{ToolCalls: []modeltest.ToolCall{{ID: "rm" + n, Name: "run_command", Input: `{"command":"rm -f keep.txt"}`}}},
			{ToolCalls: []modeltest.ToolCall{{ID: "kp" + n, Name: "write_file", Input: `{"path":"keep.txt","content":"overwritten\n"}`}}},
			{Text: "turn " + n + " done"},
		}
	}
	w.model.Script(append(calls("1", "a.txt"), calls("2", "b.txt")...)...)
	p := plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "prompt", Text: "first", Answers: []string{"allow_always", "allow_always", "reject_always", "reject_always"}},
		{Op: "prompt", Text: "again"}}}
	p.FS.Read, p.FS.Write = true, true
	out := w.run(p)
	if len(out.Violations) != 0 {
		t.Fatalf("the client library's schema check: %q", out.Violations)
	}
	if len(out.Permissions) != 4 {
		t.Fatalf("%d permission requests, want the first prompt's four only: %+v", len(out.Permissions), out.Permissions)
	}
	for i, id := range []string{"ok1", "wr1", "rm1", "kp1"} {
		perm := out.Permissions[i]
		var kinds []string
		for _, o := range perm.Options {
			kinds = append(kinds, o.Kind)
		}
		want := []string{"allow_once", "allow_always", "reject_once", "reject_always"}
		if id == "rm1" || id == "kp1" {
			// rm is never always allowed, nor is every file at the top of
			// the workspace: both can be always denied.
			want = []string{"allow_once", "reject_once", "reject_always"}
		}
		if perm.ToolCall.ToolCallID != id || !slices.Equal(kinds, want) {
			t.Errorf("permission %d: call %s options %v, want %s with %v", i, perm.ToolCall.ToolCallID, kinds, id, want)
		}
	}
	for i := 2; i <= 3; i++ {
		if out.stopReason(i) != StopEndTurn {
			t.Fatalf("prompt %d: %s", i-1, out.Steps[i].Result)
		}
	}
	var second []modeltest.ToolResult
	reqs := w.model.Requests()
	for _, r := range reqs[len(reqs)-1].ToolResults() {
		if strings.HasSuffix(r.ToolUseID, "2") {
			second = append(second, r)
		}
	}
	if len(second) != 4 {
		t.Fatalf("second prompt's results %+v", second)
	}
	if r := second[0]; r.IsError || !strings.Contains(r.Content, "acp-always-ran") {
		t.Errorf("the always-allowed command: %+v", r)
	}
	if r := second[1]; r.IsError {
		t.Errorf("the write under the always-allowed folder: %+v", r)
	}
	for _, r := range second[2:] {
		if !r.IsError || !strings.Contains(r.Content, "refused by your rule for this workspace") {
			t.Errorf("an always-denied call: %+v, want refused by the rule", r)
		}
	}
	if b, _ := os.ReadFile(keep); string(b) != "keep\n" {
		t.Errorf("keep.txt = %q, want it untouched", b)
	}
	var wrote []string
	for _, wr := range out.Writes {
		wrote = append(wrote, wr.Path)
	}
	if want := []string{filepath.Join(w.root, "src", "a.txt"), filepath.Join(w.root, "src", "b.txt")}; !slices.Equal(wrote, want) {
		t.Errorf("the client wrote %q, want %q (keep.txt never)", wrote, want)
	}
	rules, err := trust.OpenStore(filepath.Join(w.state, "agentls", "trust.json")).Rules(w.root)
	var ids []string
	for _, r := range rules {
		ids = append(ids, r.ID())
	}
	if want := "command: echo acp-always-ran|deny command: rm -f keep.txt|deny write: keep.txt|write: src"; err != nil || strings.Join(ids, "|") != want {
		t.Errorf("saved rules %q (%v), want %q", ids, err, want)
	}
}
