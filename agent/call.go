package agent

import (
	"context"
	"fmt"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// callTool runs one tool_use and returns its tool_result. Every call, built
// in or MCP, takes the same path: look the tool up, check the arguments,
// announce the call (pending when an approval may follow, else running),
// run it with its timeout (its gate, call.Gate, decides before it acts),
// then end it with its final tool_call and tool_result (callEvents). plan
// is the call's (run.plan), made just before.
func (r *run) callTool(ctx context.Context, env *tools.Env, u model.Block, plan tools.Plan) model.Block {
	t, known := r.callable[u.Name]
	if !known {
		return r.newCall(u, tools.Plan{Title: u.Name, Kind: wire.KindOther}).
			finish(fmt.Sprintf("ERROR: unknown tool %q: use one of the tools offered in this request", u.Name), true, wire.StatusFailed)
	}
	if r.notOffered(u.Name) {
		return r.newCall(u, tools.Plan{Title: u.Name, Kind: wire.KindOther}).
			finish(fmt.Sprintf("ERROR: tool %q is connected but not loaded in this request (too many tools to offer at once): call %s with what you need, and it becomes callable from your next request", u.Name, tools.SearchToolName), true, wire.StatusFailed)
	}
	if u.InvalidInput != "" {
		// Never run a tool on arguments the model did not actually give
		// (Input is then {}): say what it expects so the model can retry.
		return r.newCall(u, tools.Plan{Title: u.Name, Kind: plan.Kind, Locations: plan.Locations}).
			finish(fmt.Sprintf("ERROR: the arguments for %s were not a valid JSON object: %s\n%s",
				u.Name, tools.CapText(u.InvalidInput, 200), tools.ExpectedArgs(u.Name, t.Def().Schema)), true, wire.StatusFailed)
	}
	c := r.newCall(u, plan)
	c.ctx = ctx
	if _, isMCP := tools.MCPTool(t); r.mode() == wire.ModePlan {
		// Plan mode's closed list, before anything of the call runs.
		if why := planRefuses(u.Name, !isMCP); why != "" {
			return c.finish("ERROR: "+why, true, wire.StatusDenied)
		}
	}
	if plan.MayAsk {
		c.status(wire.StatusPending)
	} else {
		c.status(wire.StatusRunning)
		c.running = true
	}
	if why := r.beforeTool(ctx, c); why != "" {
		return c.finish(why, true, wire.StatusDenied)
	}
	o := tools.Run(ctx, env, t, plan.Timeout, c, u.Input)
	if o.Task != nil {
		r.core.adoptTask(r, u.ID, *o.Task)
	}
	r.journal.Done(u.ID)
	o.Text += r.afterTool(ctx, c, o)
	c.structured = o.Structured
	return c.finish(o.Text, o.IsError, o.Status, o.Images...)
}

// notOffered says whether name is an MCP tool this request did not offer
// (tool search narrowed the tools).
func (r *run) notOffered(name string) bool {
	return r.offered != nil && !r.offered[name] && !tools.IsBuiltin(name)
}

func (r *run) newCall(u model.Block, p tools.Plan) *call {
	return &call{callEvents: &callEvents{r: r, id: u.ID, tool: u.Name, server: p.Server, title: p.Title, kind: p.Kind,
		args: trust.RedactJSON(u.Input), locations: p.Locations}}
}

// Gate is the one gate of every tool call: Deny refuses, Ask asks the user
// (approvals.go) and keeps what an "always" answer keeps (rules.go), Allow
// marks the call running.
func (c *call) Gate(ctx context.Context, d trust.Decision, card wire.Approval, keep tools.Keep) (string, error) {
	if d.Action == trust.Deny {
		return "", &tools.Denied{Msg: "ERROR: denied by policy: " + d.Reason}
	}
	if c.r.mode() == wire.ModePlan && !planAllows(c.tool, card, d.ReadOnly, d.Action == trust.Allow) {
		// Asking is not enough in plan mode: an approved call could write.
		return "", &tools.Denied{Msg: "ERROR: plan mode is read-only, and this call could change something (" + d.Reason + "): it was not run. Write it into your plan (propose_plan) instead"}
	}
	switch d.Action {
	case trust.Allow:
		if !c.running {
			c.running = true
			c.status(wire.StatusRunning)
		}
		return "", nil
	}
	opt, err := c.r.approve(ctx, c, card)
	c.r.core.keep(opt, card, keep) // reject_always is kept though the call is refused
	if err == nil {
		c.running = true
		if card.Kind == wire.ApprovalPlan {
			c.r.setMode(wire.ModeAsk, "you accepted the plan")
		}
	}
	return opt, err
}

// Elicit puts a question the call's MCP server asks to the user
// (approvals.go's elicit); the task's cancel ends it too.
func (c *call) Elicit(ctx context.Context, e mcp.Elicitation) mcp.ElicitAnswer {
	ectx, cancel := context.WithCancel(ctx)
	defer cancel()
	if c.ctx != nil {
		defer context.AfterFunc(c.ctx, cancel)()
	}
	return c.r.elicit(ectx, c, e)
}

// ServerLog writes a server's log message to the transcript.
func (c *call) ServerLog(msg string) { c.heard(func() { c.r.tr.ServerLog(msg) }) }

func (c *call) finish(out string, isErr bool, status wire.ToolStatus, images ...model.Image) model.Block {
	c.mu.Lock()
	if c.progTick != nil {
		c.progTick.Stop()
		c.progTick = nil
	}
	if c.held && !c.ended {
		c.showProgress(c.pending) // the last progress before the end is not lost
	}
	c.ended = true
	c.mu.Unlock()
	return c.callEvents.finish(out, isErr, status, images...)
}

// cancelledCall ends a call a cancel kept from starting: announced and
// ended as cancelled, so it too gets its tool_result.
func (r *run) cancelledCall(env *tools.Env, u model.Block) model.Block {
	p := tools.Plan{Title: u.Name, Kind: wire.KindOther}
	if t, ok := r.callable[u.Name]; ok {
		plan := t.Plan(env, u.Input)
		p.Kind, p.Locations = plan.Kind, plan.Locations
	}
	return r.newCall(u, p).finish(tools.Cancelled, true, wire.StatusCancelled)
}
