package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// ServerPrompt is one prompt a connected server offers.
type ServerPrompt struct {
	Server string
	mcp.Prompt
}

// Required are the names of the prompt's required arguments.
func (p ServerPrompt) Required() []string {
	var out []string
	for _, a := range p.Arguments {
		if a.Required {
			out = append(out, a.Name)
		}
	}
	return out
}

// Prompts lists the prompts of every connected server, by server then
// name. Names, titles and descriptions are the servers' own text: escape
// them (trust.Visible) wherever they are shown.
func (c *Core) Prompts() []ServerPrompt {
	if c.reg == nil {
		return nil
	}
	var out []ServerPrompt
	for server, prompts := range c.reg.Prompts() {
		for _, p := range prompts {
			out = append(out, ServerPrompt{Server: server, Prompt: p})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Server != out[j].Server {
			return out[i].Server < out[j].Server
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// ServersChanged is closed at the next change of any MCP server's state,
// tools or prompts (nil, never closed, without servers).
func (c *Core) ServersChanged() <-chan struct{} {
	if c.reg == nil {
		return nil
	}
	return c.reg.Changed()
}

// ArgumentsUsage is how a prompt's arguments are written after its
// command: "city=... [state=...]", "" for none.
func (p ServerPrompt) ArgumentsUsage() string {
	if len(p.Arguments) == 0 {
		return ""
	}
	return argsUsage(p)
}

// PromptTitle is how a task that runs ref is named (agent/tasks, progress,
// the ACP title): the server's and the prompt's names, escaped.
func PromptTitle(ref PromptRef) string {
	return tools.FirstLine(trust.Visible(ref.Server+" · "+ref.Name), EchoMax)
}

// promptPolicyName is the name [mcp.policy] decides getting one of a
// server's prompts by: one of the server's own names, so "server__*" and
// "*" cover it, with a ':' no tool name has, as for resources.
func promptPolicyName(server string) string { return server + "__prompts:get" }

// CheckPrompt finds ref among the listed prompts and checks its arguments:
// every required one given, none the prompt does not take. The error says
// what the prompt takes. A task running ref checks again.
func (c *Core) CheckPrompt(ref PromptRef) error {
	var offered []string
	for _, p := range c.Prompts() {
		if p.Server != ref.Server {
			continue
		}
		offered = append(offered, p.Name)
		if p.Name != ref.Name {
			continue
		}
		takes := map[string]bool{}
		var names []string
		for _, a := range p.Arguments {
			takes[a.Name] = true
			names = append(names, a.Name)
		}
		var missing, unknown []string
		for _, r := range p.Required() {
			if strings.TrimSpace(ref.Arguments[r]) == "" {
				missing = append(missing, r)
			}
		}
		for k := range ref.Arguments {
			if !takes[k] {
				unknown = append(unknown, k)
			}
		}
		sort.Strings(unknown)
		switch {
		case len(missing) > 0:
			return fmt.Errorf("the prompt %s of %s needs %s: give %s", trust.Visible(ref.Name), trust.Visible(ref.Server),
				strings.Join(missing, ", "), argsUsage(p))
		case len(unknown) > 0:
			return fmt.Errorf("the prompt %s of %s takes no argument %s: it takes %s", trust.Visible(ref.Name), trust.Visible(ref.Server),
				trust.Visible(strings.Join(unknown, ", ")), orNone(names))
		}
		return nil
	}
	if offered == nil {
		return fmt.Errorf("no connected MCP server %s offers prompts (agent/mcp/servers lists them)", trust.Visible(ref.Server))
	}
	return fmt.Errorf("the MCP server %s has no prompt %s: it offers %s", trust.Visible(ref.Server), trust.Visible(ref.Name), trust.Visible(strings.Join(offered, ", ")))
}

// argsUsage is "city=... [state=...]" for a prompt's arguments.
func argsUsage(p ServerPrompt) string {
	var parts []string
	for _, a := range p.Arguments {
		s := trust.Visible(a.Name) + "=..."
		if !a.Required {
			s = "[" + s + "]"
		}
		parts = append(parts, s)
	}
	return orNone(parts)
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, " ")
}

// mcpPrompt turns the task's prompt reference into its user turn: it gets
// the prompt (prompts/get) under the server's policy, as a resource read
// is decided: deny refuses without asking the server, ask puts a card.
// The text is the server's: it becomes the user's turn only because the
// user picked this prompt. It fails with the Result the task ends with.
func (r *run) mcpPrompt(ctx context.Context, ref PromptRef) (string, *wire.RunResult) {
	c := r.core
	fail := func(err error) (string, *wire.RunResult) {
		return "", &wire.RunResult{StopReason: wire.StopError, Error: "agentls: " + err.Error()}
	}
	if c.reg == nil {
		return fail(errors.New("no MCP servers are configured"))
	}
	if err := c.CheckPrompt(ref); err != nil {
		return fail(err)
	}
	d := c.policy().ClassifyCall(trust.ToolInfo{Name: promptPolicyName(ref.Server), Server: ref.Server})
	switch d.Action {
	case trust.Deny:
		return fail(fmt.Errorf("the prompt %s of %s was not run: denied by policy: %s", trust.Visible(ref.Name), trust.Visible(ref.Server), d.Reason))
	case trust.Ask:
		args, _ := json.Marshal(orEmpty(ref.Arguments))
		shown, _ := json.MarshalIndent(orEmpty(ref.Arguments), "", "  ")
		a := wire.Approval{ApprovalID: c.newApprovalID(), TaskID: r.task.ID, Kind: wire.ApprovalMCPCall,
			Title:  "Run the prompt " + trust.Visible(ref.Name) + " of " + trust.Visible(ref.Server) + "?",
			Detail: trust.Visible(ref.Server+" · prompts/get "+ref.Name) + "\n" + trust.VisibleText(string(shown)),
			Server: ref.Server, Tool: "prompts/get", Arguments: args, Options: []wire.ApprovalOption{tools.AllowOnce, tools.RejectOnce}}
		r.emit(wire.Event{Type: wire.EventApproval, ApprovalID: a.ApprovalID, State: wire.ApprovalWaiting})
		r.task.setState(wire.TaskAwaitingApproval)
		opt, how := c.ask(ctx, a, r.io.Approver)
		r.task.setState(wire.TaskRunning)
		r.emit(wire.Event{Type: wire.EventApproval, ApprovalID: a.ApprovalID, State: wire.ApprovalResolved, OptionID: opt})
		switch how {
		case approved:
		case cancelled:
			return "", &wire.RunResult{StopReason: wire.StopCancelled}
		case timedOut:
			return fail(fmt.Errorf("the prompt %s of %s was not run: the approval timed out after %s", trust.Visible(ref.Name), trust.Visible(ref.Server), c.cfg.Agent.ApprovalTimeout))
		case unasked:
			return fail(fmt.Errorf("the prompt %s of %s was not run: it needs approval and nobody could be asked", trust.Visible(ref.Name), trust.Visible(ref.Server)))
		default:
			return fail(fmt.Errorf("the prompt %s of %s was not run: denied by the user", trust.Visible(ref.Name), trust.Visible(ref.Server)))
		}
	}
	text, err := c.reg.GetPrompt(ctx, ref.Server, ref.Name, ref.Arguments)
	if err != nil {
		if ctx.Err() != nil {
			return "", &wire.RunResult{StopReason: wire.StopCancelled}
		}
		return fail(err)
	}
	if strings.TrimSpace(text) == "" {
		return fail(fmt.Errorf("the prompt %s of %s returned no text", trust.Visible(ref.Name), trust.Visible(ref.Server)))
	}
	return text, nil
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
