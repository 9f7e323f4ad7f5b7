package agent

import (
	"context"
	"sync"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/tools"
)

// Parallel tool calls: the calls of one response that need no approval
// (read-only built-ins, MCP tools the policy allows) run at once; results
// go back in the order of the calls; a call that may ask runs alone, in its
// place, so approvals are asked one at a time and never reordered around
// the calls beside them.

// maxParallel bounds the calls of one batch in flight at once.
const maxParallel = 8

// parallelSafe says whether a call may run beside others: it can neither
// ask nor change anything the others could see (its tool's plan says).
func (r *run) parallelSafe(env *tools.Env, u model.Block) bool {
	t, ok := r.callable[u.Name]
	if u.InvalidInput != "" || !ok || r.notOffered(u.Name) {
		return true // answered at once with an error
	}
	return t.Plan(env, u.Input).Parallel
}

// callTools runs one response's tool calls and returns their results in
// call order.
func (r *run) callTools(ctx context.Context, env *tools.Env, uses []model.Block) []model.Block {
	results := make([]model.Block, len(uses))
	one := func(i int) {
		if ctx.Err() == nil {
			results[i] = r.callTool(ctx, env, uses[i])
		} else {
			// A call a cancel kept from starting still ends as cancelled.
			results[i] = r.cancelledCall(env, uses[i])
		}
	}
	for i := 0; i < len(uses); {
		j := i
		for j < len(uses) && r.parallelSafe(env, uses[j]) {
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
		if _, ok := r.callable[u.Name]; ok && !tools.IsBuiltin(u.Name) {
			r.loaded = append([]string{u.Name}, r.loaded...)
		}
	}
	return results
}
