package agent

import (
	"context"
	"github.com/agentls/agentls/wire"
	"sync"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/trust"
)

// Parallel tool calls: the calls of one response that need no approval
// (read-only built-ins, MCP tools the policy allows) run at once; results
// go back in the order of the calls; a call that may ask runs alone, in its
// place, so approvals are asked one at a time and never reordered around
// the calls beside them.

// maxParallel bounds the calls of one batch in flight at once.
const maxParallel = 8

// parallelBuiltins are the built-ins that change nothing and ask only
// before reading a file that holds secrets (readMayAsk).
var parallelBuiltins = map[string]bool{
	"read_file": true, "list_directory": true, "find_files": true, "search_text": true,
	searchToolName: true,
}

// parallelSafe says whether a call may run beside others: it can neither
// ask nor change anything the others could see.
func (r *run) parallelSafe(u model.Block) bool {
	if u.InvalidInput != "" {
		return true
	}
	if parallelBuiltins[u.Name] {
		return !r.readMayAsk(u.Name, u.Input) // a read of a secret file asks
	}
	if _, ok := builtins[u.Name]; ok {
		return false
	}
	t, ok := r.mcpTools[u.Name]
	if !ok || (r.offered != nil && !r.offered[u.Name]) {
		return true // answered at once with an error
	}
	return r.core.policy().ClassifyCall(ToolInfo(t)).Action == trust.Allow
}

// callTools runs one response's tool calls and returns their results in
// call order.
func (r *run) callTools(ctx context.Context, env *toolEnv, uses []model.Block) []model.Block {
	results := make([]model.Block, len(uses))
	one := func(i int) {
		u := uses[i]
		out, isErr := errCancelled, true
		if ctx.Err() == nil {
			out, isErr = r.callTool(ctx, env, u)
		} else {
			// A call a cancel kept from starting still ends as cancelled.
			out, isErr = r.callEvents(u).finish(errCancelled, true, wire.StatusCancelled)
		}
		results[i] = model.Block{Type: "tool_result", ToolUseID: u.ID, Content: out, IsError: isErr}
	}
	for i := 0; i < len(uses); {
		j := i
		for j < len(uses) && r.parallelSafe(uses[j]) {
			j++
		}
		if j-i < 2 {
			one(i)
			i++
			continue
		}
		var wg sync.WaitGroup
		slots := make(chan struct{}, maxParallel)
		for k := i; k < j; k++ {
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				one(k)
			})
		}
		wg.Wait()
		i = j
	}
	for _, u := range uses {
		if _, ok := r.mcpTools[u.Name]; ok {
			r.loaded = append([]string{u.Name}, r.loaded...)
		}
	}
	return results
}
