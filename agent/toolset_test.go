package agent

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/wire"
)

func TestSameToolRebuildsOnAnyChangeTheModelOrTheGateSees(t *testing.T) {
	yes, no := true, false
	base := func() mcp.Tool {
		return mcp.Tool{Name: "s__t", Server: "s", ServerTool: "t", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`),
			DefinitionHash: "h", Annotations: &mcp.Annotations{DestructiveHint: &no}}
	}
	for _, tc := range []struct {
		name   string
		change func(*mcp.Tool)
		same   bool
	}{
		{"an identical listing is the same tool", func(*mcp.Tool) {}, true},
		{"a fresh copy of the same hints is the same tool", func(x *mcp.Tool) { f := false; x.Annotations = &mcp.Annotations{DestructiveHint: &f} }, true},
		{"a new description is a new tool", func(x *mcp.Tool) { x.Description = "e" }, false},
		{"a new schema is a new tool", func(x *mcp.Tool) { x.InputSchema = json.RawMessage(`{}`) }, false},
		{"a new definition hash is a new tool", func(x *mcp.Tool) { x.DefinitionHash = "g" }, false},
		{"a flipped destructiveHint is a new tool", func(x *mcp.Tool) { x.Annotations = &mcp.Annotations{DestructiveHint: &yes} }, false},
		{"hints dropped is a new tool", func(x *mcp.Tool) { x.Annotations = nil }, false},
		{"another server's tool of the same name is a new tool", func(x *mcp.Tool) { x.Server = "o" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := base()
			tc.change(&b)
			if got := sameTool(base(), b); got != tc.same {
				t.Errorf("sameTool = %v, want %v", got, tc.same)
			}
		})
	}
}

func TestAToolAddedByListChangedMidTaskIsOfferedInTheNextTurn(t *testing.T) {
	// Turn 1 makes the server add a tool (it then sends list_changed), then
	// asks to write; the approver holds that until the registry has
	// re-listed, so turn 2 must offer the new tool: the per-turn tool set
	// must not keep serving the listing of an older generation.
	f := newFixture(t, "anthropic", withSlowServer(t, 0, time.Minute))
	f.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{
			{ID: "a1", Name: "slow__add_tool", Input: `{"name":"late_tool"}`},
			{ID: "w1", Name: "write_file", Input: `{"path":"a.txt","content":"x"}`},
		}},
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "e1", Name: "slow__echo", Input: `{"text":"x"}`}}},
		modeltest.Turn{Text: "done"},
	)
	holdUntilRelisted := approverFunc(func(ctx context.Context, a wire.Approval) (string, error) {
		if a.Kind == "mcp_call" {
			return "allow_once", nil // add_tool is not read-only, so it asks too
		}
		for !slices.ContainsFunc(f.core.reg.Tools(), func(x mcp.Tool) bool { return x.Name == "slow__late_tool" }) {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(10 * time.Millisecond):
			}
		}
		return "reject_once", nil
	})
	if res := f.run(t, RunRequest{Prompt: "add a tool"}, TaskIO{Approver: holdUntilRelisted}); res.StopReason != "end_turn" {
		t.Fatalf("result = %+v", res)
	}
	reqs := f.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	if slices.Contains(reqs[0].ToolNames(), "slow__late_tool") {
		t.Fatalf("first turn already offers slow__late_tool")
	}
	for i, r := range reqs[1:] {
		if !slices.Contains(r.ToolNames(), "slow__late_tool") {
			t.Errorf("turn %d offers %v, want slow__late_tool after the re-list", i+2, r.ToolNames())
		}
	}
}
