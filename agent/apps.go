package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// MCP Apps: a tool whose definition names a ui:// resource offers a UI
// for its result. A front that shows Apps (TaskIO.ShowsApps: the VS Code
// extension) gets the App named on the tool_result, reads its HTML with
// App and runs it in a sandbox; what the App calls comes back through
// AppCall, a call like any other: the gate, the mode, the card, which
// names the App as asking. Every other front says in the task and its
// transcript that the tool offered a UI it cannot show.

// appOffered is the App of a completed call of the model's own to an MCP
// tool that offers one, or nil. A call an App or an outside client made
// is never given one (an App does not open Apps).
func (r *run) appOffered(name string, status wire.ToolStatus, isErr bool, structured json.RawMessage) *wire.AppRef {
	if isErr || status != wire.StatusCompleted || r.client != "" || r.core.reg == nil {
		return nil
	}
	for _, t := range r.core.reg.Tools() {
		if t.Name == name && t.UI != "" {
			return &wire.AppRef{Server: t.Server, Tool: t.ServerTool, ResourceURI: t.UI, StructuredContent: redactJSON(structured)}
		}
	}
	return nil
}

// tellApp writes the App a call offered to the transcript, and tells a
// front that cannot show it so.
func (r *run) tellApp(name string, app *wire.AppRef) {
	if app == nil {
		return
	}
	if r.io.ShowsApps {
		r.tr.Note(fmt.Sprintf("%s offered a UI (%s), shown in the editor", trust.Visible(name), trust.Visible(app.ResourceURI)))
		return
	}
	msg := fmt.Sprintf("%s offered a UI (%s) that this editor cannot show; its result is the text above", trust.Visible(name), trust.Visible(app.ResourceURI))
	r.tr.Note(msg)
	r.emitStatus(msg)
}

// App reads the App a tool result named, for a front that shows it.
func (c *Core) App(ctx context.Context, p wire.AppParams) (wire.AppResult, error) {
	if c.reg == nil {
		return wire.AppResult{}, fmt.Errorf("agent: no MCP servers")
	}
	app, err := c.reg.App(ctx, p.Server, p.ResourceURI)
	if err != nil {
		return wire.AppResult{}, err
	}
	return wire.AppResult{ResourceURI: app.URI, HTML: app.HTML, PrefersBorder: app.PrefersBorder,
		CSP: wire.AppCSP{ConnectDomains: nonNil(app.CSP.ConnectDomains), ResourceDomains: nonNil(app.CSP.ResourceDomains),
			FrameDomains: nonNil(app.CSP.FrameDomains)}}, nil
}

// redactJSON is b with secrets redacted, or nil when redaction left it
// no longer JSON.
func redactJSON(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	out := json.RawMessage(trust.Redact(string(b)))
	if !json.Valid(out) {
		return nil
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// AppCall runs a tools/call an App made: only a tool of the App's own
// server, and only from an App one of that server's tools offers, through
// the path of the model's own calls; the card names the App as asking.
func (c *Core) AppCall(ctx context.Context, p wire.AppCallParams, io TaskIO) wire.AppCallResult {
	fail := func(msg string) wire.AppCallResult {
		return wire.AppCallResult{Text: "ERROR: " + msg, IsError: true, Status: wire.StatusFailed}
	}
	if err := session.CheckID(p.SessionID); err != nil {
		return fail(err.Error())
	}
	if c.reg == nil {
		return fail("agent: no MCP servers")
	}
	offered, name := false, ""
	var tool *tools.Tool
	for _, t := range c.reg.Tools() {
		if t.Server != p.Server {
			continue
		}
		offered = offered || t.UI == p.ResourceURI && p.ResourceURI != ""
		if t.ServerTool == p.Tool {
			tt := tools.FromMCP(t, c.cfg.MCP.DescriptionMaxChars)
			tool, name = &tt, t.Name
		}
	}
	switch {
	case !offered:
		return fail(fmt.Sprintf("no tool of %s offers the App %s", trust.Visible(p.Server), trust.Visible(p.ResourceURI)))
	case tool == nil:
		// Stops an App from reaching another server's tools or agentls's built-ins.
		return fail(fmt.Sprintf("the App of %s may call only that server's tools; it has none named %s", trust.Visible(p.Server), trust.Visible(p.Tool)))
	}
	client := fmt.Sprintf("the App %s of %s", p.ResourceURI, p.Server)
	res := c.callOutside(ctx, ExternalCall{Client: client, SessionID: p.SessionID, Tool: name, Input: p.Arguments}, *tool, io)
	return wire.AppCallResult{Text: res.Text, IsError: res.IsError, Status: res.Status, StructuredContent: res.Structured}
}
