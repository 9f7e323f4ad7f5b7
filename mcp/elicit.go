package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/agentls/agentls/wire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicitation is one question a server asks the user while a tool call
// runs (MCP elicitation/create): a form, or a URL to open. Every string in
// it is the server's, untrusted.
type Elicitation struct {
	Server string // the config name of the server that asks
	wire.Elicitation
	ID string // a URL elicitation's elicitationId
}

// ElicitAnswer is the user's answer: accept (with the form's content),
// decline or cancel.
type ElicitAnswer struct {
	Action  wire.ElicitAction
	Content map[string]any
}

// elicitCapabilities are what agentls announces: both modes, since every
// front can at least decline, and a form or URL it cannot show is declined.
func elicitCapabilities() *sdk.ElicitationCapabilities {
	return &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}
}

// onElicit hands a server's question to the call that asked it: the call
// whose context it comes under (a 2026-07-28 input request is fulfilled
// within its tools/call), else the call in flight on this connection that
// listens for questions (the oldest, when several do: a 2025-11-25
// elicitation/create does not say which call it belongs to). With no such
// call, or a form agentls cannot read, the answer is decline: nothing is
// ever accepted because nobody could be asked.
func (c *conn) onElicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	// A question asked under a request of ours (a 2026-07-28 input
	// request) goes to that request's listener, and to nobody when it
	// has none (a prompts/get, a resources/read): only a question that
	// comes with no request of ours is guessed to be the oldest call's.
	l := listenerOf(ctx)
	if l == nil {
		l = c.calls.oldestEliciting()
	}
	return c.elicitWith(ctx, l, req.Params)
}

// elicitWith puts question p to the user through l (nil, or one that
// cannot ask: declined) and returns the answer to send.
func (c *conn) elicitWith(ctx context.Context, l *CallListener, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	e := Elicitation{Server: c.name, ID: p.ElicitationID}
	e.Message = p.Message
	if p.Mode == "url" || (p.Mode == "" && p.URL != "") {
		e.Mode, e.URL = wire.ElicitURL, p.URL
	} else {
		e.Mode = wire.ElicitForm
		fields, err := formFields(p.RequestedSchema)
		if err != nil {
			c.logf("mcp: %s: elicitation/create: declined a form agentls cannot read: %v", c.name, err)
			return &sdk.ElicitResult{Action: string(wire.ElicitDecline)}, nil
		}
		e.Fields = fields
	}
	if l == nil || l.Elicit == nil {
		c.logf("mcp: %s: elicitation/create outside a tool call that can ask the user: declined", c.name)
		return &sdk.ElicitResult{Action: string(wire.ElicitDecline)}, nil
	}
	ans := l.Elicit(ctx, e)
	if ans.Action == "" {
		ans.Action = wire.ElicitDecline
	}
	res := &sdk.ElicitResult{Action: string(ans.Action)}
	if ans.Action == wire.ElicitAccept && e.Mode == wire.ElicitForm {
		res.Content = ans.Content
		if res.Content == nil {
			res.Content = map[string]any{}
		}
	}
	return res, nil
}

// onElicitComplete logs a server's notifications/elicitation/complete (the
// URL flow the user was sent to ended) and wakes a call waiting for it.
func (c *conn) onElicitComplete(p *sdk.ElicitationCompleteParams) {
	if p == nil {
		return
	}
	if c.logf != nil {
		c.logf("mcp: %s: elicitation %q completed", c.name, p.ElicitationID)
	}
	c.done.done(p.ElicitationID)
}

// schemaProp is the part of a form property's JSON Schema agentls reads.
type schemaProp struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Format      string          `json:"format"`
	Enum        []string        `json:"enum"`
	EnumNames   []string        `json:"enumNames"`
	OneOf       []titledValue   `json:"oneOf"`
	Default     json.RawMessage `json:"default"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	Items       *struct {
		Type  string        `json:"type"`
		Enum  []string      `json:"enum"`
		AnyOf []titledValue `json:"anyOf"`
	} `json:"items"`
}

type titledValue struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// formFields reads a requestedSchema (a flat object, which the SDK has
// already validated) into fields, required ones first, then by name, so a
// card reads the same every time.
func formFields(schema any) ([]wire.ElicitField, error) {
	if schema == nil {
		return nil, nil
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var s struct {
		Properties map[string]schemaProp `json:"properties"`
		Required   []string              `json:"required"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("requestedSchema: %w", err)
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	out := make([]wire.ElicitField, 0, len(s.Properties))
	for name, p := range s.Properties {
		f := wire.ElicitField{Name: name, Title: p.Title, Description: p.Description, Type: p.Type, Format: p.Format,
			Required: required[name], Minimum: p.Minimum, Maximum: p.Maximum, MinLength: p.MinLength, MaxLength: p.MaxLength}
		if len(p.Default) > 0 && string(p.Default) != "null" {
			f.Default = p.Default
		}
		switch {
		case len(p.Enum) > 0:
			for i, v := range p.Enum {
				ch := wire.ElicitChoice{Value: v}
				if i < len(p.EnumNames) {
					ch.Title = p.EnumNames[i]
				}
				f.Choices = append(f.Choices, ch)
			}
		case len(p.OneOf) > 0:
			for _, v := range p.OneOf {
				f.Choices = append(f.Choices, wire.ElicitChoice{Value: v.Const, Title: v.Title})
			}
		case p.Type == "array" && p.Items != nil:
			for _, v := range p.Items.Enum {
				f.Choices = append(f.Choices, wire.ElicitChoice{Value: v})
			}
			for _, v := range p.Items.AnyOf {
				f.Choices = append(f.Choices, wire.ElicitChoice{Value: v.Const, Title: v.Title})
			}
		}
		if f.Type == "" && len(f.Choices) > 0 {
			f.Type = "string"
		}
		switch f.Type {
		case "string", "number", "integer", "boolean":
		case "array":
			if len(f.Choices) == 0 {
				return nil, fmt.Errorf("property %q is an array without enum items", name)
			}
		default:
			return nil, fmt.Errorf("property %q has type %q (expected string, number, integer, boolean or a multi-select array)", name, f.Type)
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Required != out[j].Required {
			return out[i].Required
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}
