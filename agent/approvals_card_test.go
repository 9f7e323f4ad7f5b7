package agent

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/mcp"
)

// End to end: the fault server adds a tool whose name carries a terminal
// escape and a newline; the card the user is asked with shows it escaped,
// while the approval's Tool field keeps the exact name for the editor.
func TestAHostileToolNameReachesTheApprovalCardEscaped(t *testing.T) {
	const hostile = "ok\x1b[2K\nallowed"
	f := newFixture(t, "anthropic", withSlowServer(t, 0, time.Minute))
	f.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "a1", Name: "slow__add_tool", Input: `{"name":"ok\u001b[2K\nallowed"}`}}},
		modeltest.Turn{Text: "added"},
	)
	if res := f.run(t, RunRequest{Prompt: "add"}, TaskIO{Approver: &answer{opt: "allow_once"}}); res.StopReason != "end_turn" {
		t.Fatalf("result = %+v", res)
	}
	var name string
	for deadline := time.Now().Add(30 * time.Second); name == ""; time.Sleep(10 * time.Millisecond) {
		if i := slices.IndexFunc(f.core.reg.Tools(), func(x mcp.Tool) bool { return x.ServerTool == hostile }); i >= 0 {
			name = f.core.reg.Tools()[i].Name
		} else if time.Now().After(deadline) {
			t.Fatalf("the registry never listed the added tool: %+v", f.core.reg.Tools())
		}
	}
	f.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: name, Input: `{}`}}},
		modeltest.Turn{Text: "done"},
	)
	asker := &answer{opt: "reject_once"}
	if res := f.run(t, RunRequest{Prompt: "call it"}, TaskIO{Approver: asker}); res.StopReason != "end_turn" {
		t.Fatalf("result = %+v", res)
	}
	asked := asker.asked()
	if len(asked) != 1 || asked[0].Kind != "mcp_call" || asked[0].Tool != hostile {
		t.Fatalf("approvals = %+v, want one mcp_call card for the added tool", asked)
	}
	if want := `Call slow · $'ok\x1b[2K\nallowed'?`; asked[0].Title != want {
		t.Errorf("title = %q, want %q", asked[0].Title, want)
	}
	if want := `slow · $'ok\x1b[2K\nallowed'` + "\n"; !strings.HasPrefix(asked[0].Detail, want) {
		t.Errorf("detail = %q, want it to start %q", asked[0].Detail, want)
	}
}
