package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestSessionModesThroughTheSDKClient: the official ACP SDK client sees
// agentls's modes in session/new's answer and as a session config option;
// session/set_mode to plan makes a write the model tries refused without a
// permission (the file stays as it was); current_mode_update says so; the
// model's plan is a permission whose acceptance switches the session to
// ask within the turn (current_mode_update again), and then the write asks
// with allow_always naming its rule; session/set_config_option sets the
// mode too, and an unknown config id is an error.
func TestSessionModesThroughTheSDKClient(t *testing.T) {
	w := newWorld(t, "")
	path := filepath.Join(w.root, "src", "a.txt")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := modeltest.ToolCall{ID: "w1", Name: "write_file", Input: `{"path":"src/a.txt","content":"after\n"}`}
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{write}},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "p1", Name: "propose_plan", Input: `{"plan":"rewrite src/a.txt"}`}}},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w2", Name: "write_file", Input: `{"path":"src/a.txt","content":"after\n"}`}}},
		modeltest.Turn{Text: "done"},
	)
	p := plan{Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root},
		{Op: "setMode", Text: "plan"},
		{Op: "prompt", Text: "rewrite it", Answers: []string{"allow_once", "reject_once"}},
		{Op: "setConfigOption", Text: "auto-edit"},
		{Op: "setConfigOption", ConfigID: "thought_level", Text: "x"},
		{Op: "setMode", Text: "yolo"},
	}}
	out := w.run(p)
	var started struct {
		Modes struct {
			CurrentModeID  string `json:"currentModeId"`
			AvailableModes []struct{ ID string }
		}
		ConfigOptions []configOption
	}
	if err := json.Unmarshal(out.Steps[1].Result, &started); err != nil {
		t.Fatal(err)
	}
	if started.Modes.CurrentModeID != "ask" || len(started.Modes.AvailableModes) != 4 || len(started.ConfigOptions) != 2 || started.ConfigOptions[0].ID != "mode" || started.ConfigOptions[1].ID != "model" || len(started.ConfigOptions[0].Options) != 4 {
		t.Fatalf("session/new answered %s", out.Steps[1].Result)
	}
	if len(out.Permissions) != 2 {
		t.Fatalf("%d permissions, want the plan's and the write's after it", len(out.Permissions))
	}
	if out.Permissions[0].ToolCall.Title == "" || out.Permissions[1].Options[1].Kind != "allow_always" {
		t.Errorf("the plan's permission %+v, then the write's options %+v (want allow_always for its rule)", out.Permissions[0].ToolCall, out.Permissions[1].Options)
	}
	if b, _ := os.ReadFile(path); string(b) != "before\n" {
		t.Errorf("src/a.txt = %q: the write in plan mode or the denied one after it changed it", b)
	}
	var modes []string
	for _, u := range out.Updates {
		if u.Update.SessionUpdate == updateCurrentMode {
			modes = append(modes, u.Update.CurrentModeID)
		}
	}
	if want := []string{"plan", "ask", "auto-edit"}; len(modes) != len(want) || modes[0] != want[0] || modes[1] != want[1] || modes[2] != want[2] {
		t.Errorf("current_mode_update sequence %v, want %v", modes, want)
	}
	if e := out.Steps[5].Error; e == nil {
		t.Error("session/set_config_option with an unknown configId succeeded")
	}
	if e := out.Steps[6].Error; e == nil {
		t.Error("session/set_mode yolo succeeded")
	}
	if len(w.model.Requests()) != 4 {
		t.Errorf("%d model requests", len(w.model.Requests()))
	}
}
