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

// plan is a call's plan (zero for a tool this request cannot call) and
// whether it may run beside others: it can neither ask nor change anything
// the others could see (its tool's plan says).
func (r *run) plan(env *tools.Env, u model.Block) (p tools.Plan, parallel bool) {
	t, ok := r.callable[u.Name]
	if !ok || r.notOffered(u.Name) {
		return tools.Plan{}, true // answered at once with an error
	}
	p = t.Plan(env, u.Input)
	return p, p.Parallel || u.InvalidInput != ""
}

// callTools runs one response's tool calls and returns their results in
// call order.
func (r *run) callTools(ctx context.Context, env *tools.Env, uses []model.Block) []model.Block {
	results := make([]model.Block, len(uses))
	// Each call's plan comes from the scan just before it runs: only the
	// calls of a batch, which change nothing, run in between.
	plans := make([]tools.Plan, len(uses))
	one := func(i int) {
		if ctx.Err() == nil {
			results[i] = r.callTool(ctx, env, uses[i], plans[i])
		} else {
			// A call a cancel kept from starting still ends as cancelled.
			results[i] = r.cancelledCall(env, uses[i])
		}
	}
	for i := 0; i < len(uses); {
		j := i
		for j < len(uses) {
			p, parallel := r.plan(env, uses[j])
			plans[j] = p
			if !parallel {
				break
			}
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
