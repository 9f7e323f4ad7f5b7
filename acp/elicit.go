package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// An MCP server's question (docs/protocol.md section 4, elicitation). An
// editor that announced clientCapabilities.elicitation.form gets the form
// itself through ACP's elicitation/create, tied to the tool call, with the
// server named in the message; otherwise the choices come through
// session/request_permission. A URL goes through elicitation/create in url
// mode where the editor announced it, else into an agent message.

const methodCreateElicitation = "elicitation/create"

var elicitationSeq atomic.Int64

type createElicitationRequest struct {
	SessionID       string           `json:"sessionId"`
	ToolCallID      string           `json:"toolCallId,omitempty"`
	Mode            string           `json:"mode"`
	Message         string           `json:"message"`
	RequestedSchema *elicitionSchema `json:"requestedSchema,omitempty"`
	ElicitationID   string           `json:"elicitationId,omitempty"`
	URL             string           `json:"url,omitempty"`
}

type elicitionSchema struct {
	Type       string                    `json:"type"`
	Properties map[string]map[string]any `json:"properties"`
	Required   []string                  `json:"required,omitempty"`
}

type createElicitationResponse struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

func (p *permissions) elicitation() (form, url bool) {
	c := p.s.a.capabilities()
	if c.Elicitation == nil {
		return false, false
	}
	return c.Elicitation.Form != nil, c.Elicitation.URL != nil
}

// ShowsForms: the editor announced elicitation forms.
func (p *permissions) ShowsForms() bool {
	form, _ := p.elicitation()
	return form
}

// RequestForm puts an elicitation card's form to the editor
// (elicitation/create, form mode); anything but accept declines.
func (p *permissions) RequestForm(ctx context.Context, ap wire.Approval) (string, map[string]any, error) {
	if !p.ShowsForms() || ap.Elicitation == nil {
		opt, err := p.RequestApproval(ctx, ap)
		return opt, nil, err
	}
	req := createElicitationRequest{SessionID: p.s.id, ToolCallID: ap.ToolCallID, Mode: "form",
		Message: elicitMessage(ap), RequestedSchema: schemaOf(ap.Elicitation.Fields)}
	var resp createElicitationResponse
	if err := p.s.a.call(ctx, methodCreateElicitation, req, &resp); err != nil {
		return "", nil, err
	}
	if resp.Action != string(wire.ElicitAccept) {
		return wire.OptionDecline, nil, nil
	}
	return wire.OptionAccept, resp.Content, nil
}

// OpenURL sends the user to u: elicitation/create in url mode where the
// editor announced it, else an agent message with the URL.
func (p *permissions) OpenURL(ctx context.Context, u string) error {
	if _, url := p.elicitation(); url {
		req := createElicitationRequest{SessionID: p.s.id, Mode: "url", URL: u,
			Message:       "agentls: open this page in your browser: " + trust.Visible(u),
			ElicitationID: fmt.Sprintf("agentls-%d", elicitationSeq.Add(1))}
		var resp createElicitationResponse
		if err := p.s.a.call(ctx, methodCreateElicitation, req, &resp); err != nil {
			return err
		}
		if resp.Action != string(wire.ElicitAccept) {
			return fmt.Errorf("the editor answered %q", resp.Action)
		}
		return nil
	}
	p.s.send(sessionUpdate{SessionUpdate: updateAgentMessage, Content: ptr(textBlock("[agentls: open this URL in your browser: " + trust.Visible(u) + "]\n\n"))})
	return nil
}

// elicitMessage is the form's message as the editor shows it: the card's
// detail, which names the server and quotes its words escaped.
func elicitMessage(ap wire.Approval) string {
	return ap.Detail
}

// schemaOf is ACP's ElicitationSchema of the form's fields.
func schemaOf(fields []wire.ElicitField) *elicitionSchema {
	s := &elicitionSchema{Type: "object", Properties: map[string]map[string]any{}}
	for _, f := range fields {
		p := map[string]any{"type": f.Type}
		if f.Title != "" {
			p["title"] = trust.Visible(f.Title)
		}
		if f.Description != "" {
			p["description"] = trust.Visible(f.Description)
		}
		if f.Format != "" {
			p["format"] = f.Format
		}
		if len(f.Default) > 0 {
			var d any
			if json.Unmarshal(f.Default, &d) == nil {
				p["default"] = d
			}
		}
		for k, v := range map[string]*float64{"minimum": f.Minimum, "maximum": f.Maximum} {
			if v != nil {
				p[k] = *v
			}
		}
		for k, v := range map[string]*int{"minLength": f.MinLength, "maxLength": f.MaxLength} {
			if v != nil {
				p[k] = *v
			}
		}
		if len(f.Choices) > 0 {
			opts := make([]map[string]string, 0, len(f.Choices))
			for _, c := range f.Choices {
				title := c.Title
				if title == "" {
					title = c.Value
				}
				opts = append(opts, map[string]string{"const": c.Value, "title": trust.Visible(title)})
			}
			if f.Type == "array" {
				p["items"] = map[string]any{"anyOf": opts}
			} else {
				p["oneOf"] = opts
			}
		}
		s.Properties[f.Name] = p
		if f.Required {
			s.Required = append(s.Required, f.Name)
		}
	}
	return s
}
