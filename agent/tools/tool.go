// Package tools holds what the model can call: the Tool value every tool is,
// built in or from an MCP server (its definition, its plan, its run), and
// agentls's built-in tools, listed in [Builtins].
//
// A tool decides for itself whether a call asks (through trust's pure
// decisions) and hands that decision to [Call.Gate] before it acts; the
// loop in package agent owns the gate, the approvals and the events. This
// package never imports agent, never talks to a client and never asks the
// user itself.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// Tool is one tool the model can call, built in or from an MCP server.
type Tool interface {
	// Def is the definition the model is offered.
	Def() model.ToolDef
	// Plan says how a call with arguments in starts, before anything
	// runs: how it is shown, whether an approval may follow and whether it
	// may run beside other calls. It is cheap and changes nothing.
	Plan(env *Env, in json.RawMessage) Plan
	// Run runs one call. Before it acts it hands its decision to
	// call.Gate, which refuses, asks the user or lets it go on; a *Denied
	// error is the gate's refusal.
	Run(ctx context.Context, env *Env, call Call, in json.RawMessage) (Result, error)
}

// Plan is how one call starts, from its arguments alone.
type Plan struct {
	// Title is one line for the client: the tool and what it touches.
	Title string
	// Server is the MCP server the call goes to; "" for a built-in.
	Server    string
	Kind      wire.ToolKind
	Locations []string // the files the call names, absolute
	// MayAsk: an approval may follow, so the call starts pending and is
	// running only once its gate lets it act (docs/protocol.md section 3).
	MayAsk bool
	// Parallel: the call can neither ask nor change anything the other
	// calls of its response could see, so it may run beside them.
	Parallel bool
	// Timeout bounds one run; 0 when the tool brings its own.
	Timeout time.Duration
}

// Result is what a call returns to the model.
type Result struct {
	Text string
	// IsError: the tool itself reports failure (an MCP server's isError).
	IsError bool
	// Images are the images the model may be shown (an MCP result's), each
	// also named in Text.
	Images []model.Image
	// Task is an MCP call's task still running on its server past
	// call_timeout (Text says so): the core follows it on.
	Task *mcp.Task
	// Structured is an MCP result's structuredContent, for an MCP App.
	Structured json.RawMessage
}

// Call is the loop's side of one tool call, handed to Tool.Run.
type Call interface {
	// Gate applies d before the call acts: Deny refuses with a *Denied,
	// Ask puts card to the user (one approval at a time) and returns the
	// option chosen, Allow marks the call running. A nil error means the
	// call may go on. When the user picks an "always" option of the card,
	// the gate saves what keep says that option keeps.
	Gate(ctx context.Context, d trust.Decision, card wire.Approval, keep Keep) (optionID string, err error)
	// Progress reports a running call's progress (an MCP server's
	// notifications/progress). Nothing is reported once the call ended.
	Progress(msg string)
	// ServerLog records a log message a server sent during the call.
	ServerLog(msg string)
	// Elicit asks the user a question the call's MCP server sent during
	// the call (elicitation); every way of not answering declines.
	Elicit(ctx context.Context, e mcp.Elicitation) mcp.ElicitAnswer
}

// Searcher is search_tools's search over the connected MCP tools not
// offered in this request; it fails when every tool is already offered.
type Searcher interface {
	SearchTools(query string, limit int) (string, error)
}

// Env is what a tool may touch during one task.
type Env struct {
	Workspace Workspace
	Registry  *mcp.Registry // nil: no MCP servers
	MaxBytes  int           // caps a result ([mcp] result_max_bytes)
	// Mode is the session's mode now (an accepted plan changes it during a
	// turn); nil: ask.
	Mode    func() wire.Mode
	HideEnv []string // environment variables run_command must not pass on
	Secrets Secrets  // what read tools ask about before reading
	// SandboxRead are the user config's [sandbox] read folders, which a
	// command run confined may read and run from too.
	SandboxRead []string
	// Policy is the MCP call policy (nil, or returning nil: no rules, so
	// everything asks).
	Policy func() *trust.Policy
	// Store holds the workspace's saved rules the decisions read (the gate
	// saves new ones, Keep); nil: none apply, and no card offers "always".
	Store  *trust.Store
	Search Searcher // nil: search_tools has nothing to search
	// Checkpoint records files before the agent changes them; nil: none.
	Checkpoint Checkpointer
}

func (env *Env) mode() wire.Mode {
	if env.Mode == nil {
		return wire.ModeAsk
	}
	return env.Mode()
}

func (env *Env) policy() *trust.Policy {
	if env.Policy == nil {
		return nil
	}
	return env.Policy()
}

// Denied is a gate's refusal; Msg goes to the model as the call's result.
type Denied struct{ Msg string }

func (e *Denied) Error() string { return e.Msg }

// Cancelled is the result text of every call a cancel interrupted.
const Cancelled = "ERROR: cancelled"

// Outcome is how one call ended: the result text for the model (capped),
// whether it is an error, the call's final status, and the images of a
// result the tool returned.
type Outcome struct {
	Text    string
	IsError bool
	Status  wire.ToolStatus
	Images  []model.Image
	Task    *mcp.Task // Result.Task
	// Structured is Result.Structured, for an MCP App (never the model's).
	Structured json.RawMessage
}

// Run runs one call of t with its plan's timeout and turns what it
// returned into the call's outcome.
func Run(ctx context.Context, env *Env, t Tool, timeout time.Duration, call Call, in json.RawMessage) Outcome {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	res, err := t.Run(ctx, env, call, in)
	if err != nil && timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%s timed out after %s", t.Def().Name, timeout)
	}
	return outcome(ctx, res, err, env.MaxBytes)
}

func outcome(ctx context.Context, res Result, err error, max int) Outcome {
	var d *Denied
	switch {
	case err == nil && res.IsError:
		return Outcome{capText(res.Text, max), true, wire.StatusFailed, res.Images, nil, nil}
	case err == nil:
		return Outcome{capText(res.Text, max), false, wire.StatusCompleted, res.Images, res.Task, res.Structured}
	case errors.As(err, &d):
		return Outcome{d.Msg, true, wire.StatusDenied, nil, nil, nil}
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled):
		return Outcome{Cancelled, true, wire.StatusCancelled, nil, nil, nil}
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "ERROR:") {
		msg = "ERROR: " + msg
	}
	return Outcome{capText(msg, max), true, wire.StatusFailed, nil, nil, nil}
}

// CapText cuts s to max bytes (on a rune boundary) with a marker saying how
// much was cut, so a flood of output never reaches the model whole.
func CapText(s string, max int) string { return capText(s, max) }

func capText(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[... %d of %d bytes cut]", len(s)-cut, len(s))
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
