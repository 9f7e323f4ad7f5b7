package agent

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentls/agentls/mcp/toolname"
	"github.com/agentls/agentls/wire"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/mcp"
)

// toolSet is this turn's tools: the built-ins, then the registry's tools of
// the moment. The first turn (first) waits up to startup_wait for servers
// still connecting; later turns take whatever is connected by then.
func (r *run) toolSet(ctx context.Context, first bool) []model.ToolDef {
	c := r.core
	if c.reg == nil {
		if r.callable == nil {
			r.setTools(nil)
		}
		return r.toolDefs
	}
	if first && slices.ContainsFunc(c.reg.Servers(), func(s mcp.ServerInfo) bool { return s.State == mcp.Connecting }) {
		r.emit(wire.Event{Type: wire.EventStatus, Message: fmt.Sprintf("waiting up to %s for MCP servers to connect", c.cfg.MCP.StartupWait)})
		wctx, cancel := context.WithTimeout(ctx, c.cfg.MCP.StartupWait)
		c.reg.Wait(wctx)
		cancel()
	}
	// Read before Tools: a change in between makes the next turn's
	// generation differ, so the worst case is one comparison too many.
	gen := c.reg.ToolsGeneration()
	if r.listed != nil && gen == r.listedGen {
		return r.toolDefs // same generation: Tools would list the same
	}
	listed := c.reg.Tools()
	if r.listed != nil && slices.EqualFunc(listed, r.listed, sameTool) {
		r.listedGen = gen
		return r.toolDefs // nothing changed since the last turn
	}
	r.setTools(listed)
	if listed == nil {
		listed = []mcp.Tool{}
	}
	r.listed, r.listedGen = listed, gen
	return r.toolDefs
}

// setTools makes the built-ins and listed (the registry's MCP tools) this
// turn's tools.
func (r *run) setTools(listed []mcp.Tool) {
	c := r.core
	r.callable = make(map[string]tools.Tool, len(c.builtins)+len(listed))
	r.toolDefs = make([]model.ToolDef, 0, len(c.builtins)+len(listed))
	r.mcpTools = nil
	for _, b := range c.builtins {
		r.callable[b.Def().Name] = b
		r.toolDefs = append(r.toolDefs, b.Def())
	}
	// Callable in every mode (it says when the session is not planning),
	// offered only in plan mode (loop.go).
	r.callable[tools.ProposePlanName] = tools.ProposePlan()
	for _, t := range listed {
		if _, taken := r.callable[t.Name]; taken || !toolname.Valid(t.Name) {
			c.logf("agent: MCP tool %q of server %q left out: its name is illegal or taken", t.Name, t.Server)
			continue
		}
		tool := tools.FromMCP(t, c.cfg.MCP.DescriptionMaxChars)
		r.callable[t.Name] = tool
		r.toolDefs = append(r.toolDefs, tool.Def())
		r.mcpTools = append(r.mcpTools, t)
	}
	slices.SortFunc(r.mcpTools, func(a, b mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
}

// sameTool says two listings of a tool would give the model the same
// definition and the call gate the same facts (hints included).
func sameTool(a, b mcp.Tool) bool {
	return a.Name == b.Name && a.Server == b.Server && a.ServerTool == b.ServerTool &&
		a.DefinitionHash == b.DefinitionHash && a.Description == b.Description &&
		bytes.Equal(a.InputSchema, b.InputSchema) && sameHints(a.Annotations, b.Annotations)
}

func sameHints(a, b *mcp.Annotations) bool {
	if a == nil || b == nil {
		return a == b
	}
	sameBool := func(x, y *bool) bool { return x == y || (x != nil && y != nil && *x == *y) }
	return a.Title == b.Title && a.ReadOnlyHint == b.ReadOnlyHint && a.IdempotentHint == b.IdempotentHint &&
		sameBool(a.DestructiveHint, b.DestructiveHint) && sameBool(a.OpenWorldHint, b.OpenWorldHint)
}
