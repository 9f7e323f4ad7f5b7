package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/agentls/agentls/wire"
	"slices"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/mcp"
)

// toolSet is this turn's tools: the built-ins, then the registry's tools of
// the moment. The first turn (first) waits up to startup_wait for servers
// still connecting; later turns take whatever is connected by then.
func (r *run) toolSet(ctx context.Context, first bool) []model.ToolDef {
	c := r.core
	if c.reg == nil {
		return builtinDefs()
	}
	if first && slices.ContainsFunc(c.reg.Servers(), func(s mcp.ServerInfo) bool { return s.State == mcp.Connecting }) {
		r.emit(Event{Type: wire.EventStatus, Message: fmt.Sprintf("waiting up to %s for MCP servers to connect", c.cfg.MCP.StartupWait)})
		wctx, cancel := context.WithTimeout(ctx, c.cfg.MCP.StartupWait)
		c.reg.Wait(wctx)
		cancel()
	}
	// Read before Tools: a change in between makes the next turn's
	// generation differ, so the worst case is one comparison too many.
	gen := c.reg.ToolsGeneration()
	if r.toolDefs != nil && gen == r.listedGen {
		return r.toolDefs // same generation: Tools would list the same
	}
	listed := c.reg.Tools()
	if r.toolDefs != nil && slices.EqualFunc(listed, r.listed, sameTool) {
		r.listedGen = gen
		return r.toolDefs // nothing changed since the last turn
	}
	defs := builtinDefs()
	r.mcpTools = map[string]mcp.Tool{}
	for _, t := range listed {
		if _, clash := builtins[t.Name]; clash || !legalToolName.MatchString(t.Name) || r.mcpTools[t.Name].Name != "" {
			c.logf("agent: MCP tool %q of server %q left out: its name is illegal or taken", t.Name, t.Server)
			continue
		}
		r.mcpTools[t.Name] = t
		desc := fmt.Sprintf("[MCP server %q, tool %q] %s", t.Server, t.ServerTool, capRunes(t.Description, c.cfg.MCP.DescriptionMaxChars))
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		defs = append(defs, model.ToolDef{Name: t.Name, Description: desc, Schema: schema})
	}
	r.listed, r.toolDefs, r.listedGen = listed, defs, gen
	return defs
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

// capRunes cuts a server-authored description (G4: a description is
// third-party text the model reads on every turn).
func capRunes(s string, max int) string {
	r := []rune(s)
	if max <= 0 || len(r) <= max {
		return s
	}
	return string(r[:max]) + "…"
}
