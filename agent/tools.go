package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentls/agentls/wire"
	"sort"
	"strings"
	"time"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

// builtin is one agentls built-in tool: its definition for the model and the
// function that runs it. Results are plain text for the model.
type builtin struct {
	def model.ToolDef
	run func(ctx context.Context, env *toolEnv, in json.RawMessage) (string, error)
	// timeout bounds one call; run_command brings its own.
	timeout time.Duration
	// gated tools may ask before they act, so their call starts pending and
	// is running only once their gate (toolEnv.gate) lets them act.
	gated bool
}

// toolEnv is what a built-in may touch during one task.
type toolEnv struct {
	ws        Workspace
	reg       *mcp.Registry
	maxBytes  int
	autopilot bool
	hideEnv   []string     // environment variables run_command must not pass on
	secrets   secretPlaces // what read tools ask about before reading
	// policy is the MCP call policy (nil: no rules, so everything asks).
	policy func() *trust.Policy
	// approve asks the user; nil error means allowed. A *deniedError says
	// how it was denied.
	approve func(ctx context.Context, a Approval) error
	// running marks the call running when its gate allows it without
	// asking; an approval marks it running itself.
	running func()
	// searchTools is search_tools's search; nil when every tool is offered.
	searchTools func(query string, limit int) string
}

// gate applies a gated built-in's decision before it acts: Deny refuses,
// Ask asks the user, Allow marks the call running.
func (env *toolEnv) gate(ctx context.Context, d trust.Decision, a Approval) error {
	switch d.Action {
	case trust.Deny:
		return &deniedError{"ERROR: denied by policy: " + d.Reason}
	case trust.Allow:
		if env.running != nil {
			env.running()
		}
		return nil
	}
	if env.approve == nil {
		return &deniedError{"ERROR: denied: " + d.Reason + ", and there is nobody to ask"}
	}
	return env.approve(ctx, a)
}

// deniedError is a gate's refusal; its text goes to the model as the result.
type deniedError struct{ msg string }

func (e *deniedError) Error() string { return e.msg }

// errCancelled is the result text of every call a cancel interrupted.
const errCancelled = "ERROR: cancelled"

var builtins = map[string]builtin{}

func register(b builtin) { builtins[b.def.Name] = b }

// BuiltinToolNames are the names of the built-in tools. The MCP registry
// must reserve them (mcp.Options.Reserved) so no server's tool can take one.
func BuiltinToolNames() []string {
	names := make([]string, 0, len(builtins))
	for n := range builtins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// builtinDefs are the built-in tool definitions, sorted by name.
func builtinDefs() []model.ToolDef {
	defs := make([]model.ToolDef, 0, len(builtins))
	for _, n := range BuiltinToolNames() {
		defs = append(defs, builtins[n].def)
	}
	return defs
}

// decodeArgs decodes a tool's JSON arguments strictly, so a misspelled field
// comes back to the model as an error naming it rather than being ignored.
func decodeArgs(tool string, in json.RawMessage, v any, expected string) error {
	if len(bytes.TrimSpace(in)) == 0 {
		in = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: bad arguments: %v; expected %s", tool, err, expected)
	}
	return nil
}

// schema builds a JSON Schema object from property lines.
func schema(required []string, props map[string]string) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", k, props[k])
	}
	b.WriteString(`},"required":[`)
	for i, r := range required {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q", r)
	}
	b.WriteString(`],"additionalProperties":false}`)
	return json.RawMessage(b.String())
}

func str(desc string) string {
	d, _ := json.Marshal(desc)
	return `{"type":"string","description":` + string(d) + `}`
}

func integer(desc string) string {
	d, _ := json.Marshal(desc)
	return `{"type":"integer","description":` + string(d) + `}`
}

func boolean(desc string) string {
	d, _ := json.Marshal(desc)
	return `{"type":"boolean","description":` + string(d) + `}`
}

// capText cuts s to max bytes (on a rune boundary) with a marker saying how
// much was cut, so a flood of output never reaches the model whole.
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

// runBuiltin runs one built-in with its timeout and turns its outcome into
// the tool_result text and a status.
func runBuiltin(ctx context.Context, b builtin, env *toolEnv, in json.RawMessage) (out string, isError bool, status wire.ToolStatus) {
	if b.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, b.timeout)
		defer cancel()
	}
	text, err := b.run(ctx, env, in)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%s timed out after %s", b.def.Name, b.timeout)
	}
	return outcome(ctx, text, err, env.maxBytes)
}

func outcome(ctx context.Context, text string, err error, max int) (string, bool, wire.ToolStatus) {
	var d *deniedError
	switch {
	case err == nil:
		return capText(text, max), false, wire.StatusCompleted
	case errors.As(err, &d):
		return d.msg, true, wire.StatusDenied
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled):
		return errCancelled, true, wire.StatusCancelled
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "ERROR:") {
		msg = "ERROR: " + msg
	}
	return capText(msg, max), true, wire.StatusFailed
}

// expectedArgs says in one line what a tool's input schema asks for, for an
// error the model reads when its arguments were not a JSON object. Property
// names come from the schema the model was already offered; the line is
// capped so a server's huge schema cannot flood the result.
func expectedArgs(tool string, schema json.RawMessage) string {
	var s struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(schema, &s) // an unreadable schema reads as "no fields"
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	var optional []string
	for p := range s.Properties {
		if !required[p] {
			optional = append(optional, p)
		}
	}
	sort.Strings(optional)
	req := append([]string(nil), s.Required...)
	sort.Strings(req)
	quote := func(names []string) string {
		q := make([]string, len(names))
		for i, n := range names {
			q[i] = fmt.Sprintf("%q", n)
		}
		return strings.Join(q, ", ")
	}
	line := tool + " expects a JSON object with "
	if len(req) == 0 {
		line += "no required fields"
	} else {
		line += "required fields: " + quote(req)
	}
	if len(optional) > 0 {
		line += "; optional: " + quote(optional)
	}
	return capText(line, 1000)
}
