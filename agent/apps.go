package agent

import (
	"context"
	"encoding/json"
	"fmt"

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
