package agent

import (
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/mcp"
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
