package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestPermissionShowsTheCallItAsks: every session/request_permission that
// gates a tool call repeats what the call's tool_call said of it (title,
// kind, rawInput, locations), so an editor that draws the card from
// params.toolCall alone (CodeCompanion, web front-ends) shows what it asks
// rather than "Permission request" or a path it made up. Checked through
// the official ACP client library, whose schema check sees every message.
func TestPermissionShowsTheCallItAsks(t *testing.T) {
	marker := "acp-perm-shape-" + t.Name()
	w := newWorld(t, faultServer(t, marker))
	path := filepath.Join(w.root, "hello.txt")
	if err := os.WriteFile(path, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "m1", Name: "fs__getenv", Input: `{"text":"AGENTLS_NOPE"}`}}},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "edit_file", Input: `{"path":"hello.txt","old_text":"hello","new_text":"goodbye"}`}}},
		modeltest.Turn{Text: "done"},
	)
	p := plan{Marker: marker, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "prompt", Text: "read the env, then edit hello.txt", Answers: []string{"allow_once", "allow_once"}}}}
	p.FS.Read, p.FS.Write = true, true
	out := w.run(p)
	if len(out.Permissions) != 2 {
		t.Fatalf("want 2 permissions (the MCP call, the edit), got %d: %+v", len(out.Permissions), out.Permissions)
	}
	for i, want := range []struct {
		id, kind, location string
	}{{"m1", "other", ""}, {"w1", "edit", path}} {
		got := out.Permissions[i].ToolCall
		ups := out.toolUpdates(want.id)
		if len(ups) == 0 || ups[0].SessionUpdate != updateToolCall {
			t.Fatalf("%s: no tool_call before its permission: %+v", want.id, ups)
		}
		first := ups[0].toolCallIn
		if got.ToolCallID != want.id || got.Title == "" || got.Title != first.Title || got.Kind != want.kind || got.Kind != first.Kind {
			t.Errorf("%s: permission toolCall id %q title %q kind %q, want the call's own (title %q, kind %s)",
				want.id, got.ToolCallID, got.Title, got.Kind, first.Title, want.kind)
		}
		if !sameJSON(got.RawInput, first.RawInput) || len(got.RawInput) == 0 {
			t.Errorf("%s: permission rawInput %s, want the call's arguments %s", want.id, got.RawInput, first.RawInput)
		}
		if want.location == "" {
			if len(got.Locations) != 0 {
				t.Errorf("%s: an MCP call names no file, got locations %+v", want.id, got.Locations)
			}
		} else if len(got.Locations) != 1 || got.Locations[0].Path != want.location {
			t.Errorf("%s: permission locations %+v, want [%s]", want.id, got.Locations, want.location)
		}
	}
	if d := out.Permissions[1].ToolCall.contents(); len(d) != 1 || d[0].Type != "diff" || d[0].Path != path {
		t.Errorf("the edit's permission still carries its diff: %+v", d)
	}
	if out.stopReason(2) != StopEndTurn || out.text() != "done" {
		t.Errorf("turn: %s, text %q", out.Steps[2].Result, out.text())
	}
	testenv.WaitNoProcesses(t, marker, 5*time.Second)
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}
