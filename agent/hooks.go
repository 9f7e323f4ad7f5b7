package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// hookStringMax caps each string a hook's event carries (an environment
// variable has a size limit, and a file's whole text is not the point).
const hookStringMax = 8000

// hookEvent is what a hook gets in AGENTLS_HOOK_EVENT (docs/config.md).
type hookEvent struct {
	Event      config.HookEvent `json:"event"`
	SessionID  string           `json:"sessionId"`
	TaskID     string           `json:"taskId"`
	Mode       wire.Mode        `json:"mode"`
	Tool       string           `json:"tool,omitempty"`
	Arguments  json.RawMessage  `json:"arguments,omitempty"`
	Status     wire.ToolStatus  `json:"status,omitempty"`
	Output     string           `json:"output,omitempty"`
	StopReason wire.StopReason  `json:"stopReason,omitempty"`
}

// hooksFor are the user's hooks of ev that run for tool ("" for turn_end).
func (r *run) hooksFor(ev config.HookEvent, tool string) []config.Hook {
	var out []config.Hook
	for _, h := range r.core.cfg.Hooks[ev] {
		if ev == config.HookTurnEnd || h.Matches(tool) {
			out = append(out, h)
		}
	}
	return out
}

// runHooks runs hs with e, one after the other; stop ends the loop early
// when it returns true.
func (r *run) runHooks(ctx context.Context, hs []config.Hook, e hookEvent, stop func(config.Hook, tools.HookRun) bool) {
	if len(hs) == 0 {
		return
	}
	e.SessionID, e.TaskID, e.Mode = r.task.SessionID, r.task.ID, r.mode()
	e.Arguments = capJSONStrings(e.Arguments)
	e.Output = tools.CapText(e.Output, hookStringMax)
	b, err := json.Marshal(e)
	if err != nil {
		r.core.logf("agent: hook event: %v", err)
		return
	}
	env := &tools.Env{Workspace: r.ws, SandboxRead: r.core.cfg.Sandbox.Read}
	env.HideEnv = r.core.keyEnvs()
	for _, h := range hs {
		run := tools.RunHook(ctx, env, h, b)
		if run.Err != nil {
			r.core.logf("agent: %s (%s): %v", tools.HookName(h), h.Source, run.Err)
		}
		if stop(h, run) {
			return
		}
	}
}

// beforeTool runs the before_tool hooks of call c; a non-empty answer is
// the denial the model reads. A hook never allows anything: exit 0 lets
// the call go on to its gate.
func (r *run) beforeTool(ctx context.Context, c *call) string {
	why := ""
	r.runHooks(ctx, r.hooksFor(config.HookBeforeTool, c.tool), hookEvent{Event: config.HookBeforeTool, Tool: c.tool, Arguments: c.args},
		func(h config.Hook, run tools.HookRun) bool {
			switch {
			case run.Err != nil:
				why = fmt.Sprintf("ERROR: denied: your %s could not run (%v), and a before_tool hook that cannot decide denies", tools.HookName(h), run.Err)
			case run.ExitCode == 2:
				why = fmt.Sprintf("ERROR: denied by your %s: %s", tools.HookName(h), hookSaid(run.Output))
			case run.ExitCode != 0:
				why = fmt.Sprintf("ERROR: denied: your %s failed (exit status %d: %s); only exit status 0 lets a call go on", tools.HookName(h), run.ExitCode, hookSaid(run.Output))
			}
			return why != ""
		})
	return why
}

// afterTool runs the after_tool hooks of call c, which ended with o, and
// returns what their output adds to the result the model reads.
func (r *run) afterTool(ctx context.Context, c *call, o tools.Outcome) string {
	add := ""
	r.runHooks(ctx, r.hooksFor(config.HookAfterTool, c.tool), hookEvent{Event: config.HookAfterTool, Tool: c.tool, Arguments: c.args, Status: o.Status, Output: trust.Redact(o.Text)},
		func(h config.Hook, run tools.HookRun) bool {
			if run.Err == nil && run.Output != "" {
				add += fmt.Sprintf("\n\n[your %s added:]\n%s", tools.HookName(h), tools.CapText(run.Output, tools.HookShownMax))
			}
			if run.Err == nil && run.ExitCode != 0 {
				r.core.logf("agent: %s (%s) exited %d", tools.HookName(h), h.Source, run.ExitCode)
			}
			return false
		})
	return add
}

// turnEnd runs the turn_end hooks; their output goes to the log and a
// status event.
func (r *run) turnEnd(ctx context.Context, res wire.RunResult) {
	r.runHooks(ctx, r.hooksFor(config.HookTurnEnd, ""), hookEvent{Event: config.HookTurnEnd, StopReason: res.StopReason},
		func(h config.Hook, run tools.HookRun) bool {
			switch {
			case run.Err != nil:
				r.emitStatus(fmt.Sprintf("your %s did not run: %v", tools.HookName(h), run.Err))
			case run.Output != "" || run.ExitCode != 0:
				msg := fmt.Sprintf("your %s (exit status %d): %s", tools.HookName(h), run.ExitCode, tools.CapText(trust.Redact(run.Output), tools.HookShownMax))
				r.core.logf("%s", msg)
				r.emitStatus(msg)
			}
			return false
		})
}

// hookSaid is a hook's output as a reason: escaped, capped.
func hookSaid(out string) string {
	if out == "" {
		return "(it printed nothing)"
	}
	return trust.VisibleText(tools.CapText(out, tools.HookShownMax))
}

// capJSONStrings cuts every string in a JSON value to hookStringMax.
func capJSONStrings(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case string:
			return tools.CapText(t, hookStringMax)
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		case map[string]any:
			for k := range t {
				t[k] = walk(t[k])
			}
		}
		return x
	}
	b, err := json.Marshal(walk(v))
	if err != nil {
		return raw
	}
	return b
}
