package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestHooksThroughTheSDKClient is [hooks] from an ACP client (the official
// SDK's): the user's before_tool hook denies the model's `rm -rf build`
// (exit 2) before any permission is asked, the tool call fails with the
// hook's reason, which the model reads too; an after_tool hook's line is
// added to the read's result; the turn_end hook's output reaches the
// client as a thought of its own. The build folder is still there.
func TestHooksThroughTheSDKClient(t *testing.T) {
	w := newWorld(t, `
[[hooks.before_tool]]
command = ["sh", "-c", "echo 'hook: rm is not allowed in this repository'; exit 2"]
tools = ["run_command"]

[[hooks.after_tool]]
command = ["sh", "-c", "echo after-hook saw the call"]

[[hooks.turn_end]]
command = ["sh", "-c", "echo turn-end hook ran"]
`)
	if err := os.MkdirAll(filepath.Join(w.root, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.root, "greeting.txt"), []byte("say hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{
			{ID: "c1", Name: "run_command", Input: `{"command":"rm -rf build"}`},
			{ID: "r1", Name: "read_file", Input: `{"path":"greeting.txt"}`},
		}},
		modeltest.Turn{Text: "the hook stopped me"},
	)
	out := w.run(plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "prompt", Text: "clean up", Answers: []string{"allow_once", "allow_once"}}}})
	for i, s := range out.Steps {
		if s.Error != nil {
			t.Fatalf("step %d (%s): %+v", i, s.Op, s.Error)
		}
	}
	if len(out.Permissions) != 0 {
		t.Errorf("%d permissions asked: a call the hook denied must not ask", len(out.Permissions))
	}
	var denied, thoughts string
	for _, u := range out.Updates {
		switch {
		case u.Update.ToolCallID == "c1" && u.Update.Status == string(StatusFailed):
			for _, c := range u.Update.contents() {
				if c.Content != nil {
					denied += c.Content.Text
				}
			}
		case u.Update.SessionUpdate == updateAgentThought:
			thoughts += u.Update.chunkText()
		}
	}
	if !strings.Contains(denied, "denied by your before_tool hook") || !strings.Contains(denied, "hook: rm is not allowed in this repository") {
		t.Errorf("the denied call's content = %q, want the hook's reason", denied)
	}
	if !strings.Contains(thoughts, "turn_end hook sh -c echo turn-end hook ran (exit status 0): turn-end hook ran") {
		t.Errorf("the client's thoughts = %q, want the turn_end hook's output", thoughts)
	}
	reqs := w.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	rs := reqs[1].ToolResults()
	if len(rs) != 2 || !rs[0].IsError || !strings.Contains(rs[0].Content, "hook: rm is not allowed") || strings.Contains(rs[0].Content, "after-hook") ||
		rs[1].IsError || !strings.Contains(rs[1].Content, "say hello") || !strings.Contains(rs[1].Content, "after-hook saw the call") {
		t.Errorf("the model read %+v, want the denial with the hook's reason, then the file with the after_tool hook's line", rs)
	}
	if _, err := os.Stat(filepath.Join(w.root, "build")); err != nil {
		t.Errorf("the build folder is gone: %v", err)
	}
}
