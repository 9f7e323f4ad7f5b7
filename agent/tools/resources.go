package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"os"
	"strings"
	"time"

	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

const resourceTimeout = 60 * time.Second

var (
	listResourcesTool = newBuiltin(builtin{kind: wire.KindFetch, timeout: resourceTimeout, gated: true},
		"list_mcp_resources", "List MCP servers' resources (only server's if given); fill in a template URI (RFC 6570) to read it.", listResources)
	readResourceTool = newBuiltin(builtin{kind: wire.KindFetch, timeout: resourceTimeout, gated: true},
		"read_mcp_resource", "Read resource uri of an MCP server; binary content is saved to a file whose path is returned.", readResource)
)

type listResourcesArgs struct {
	Server string `json:"server,omitempty"`
}

type readResourceArgs struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
}

func listResources(ctx context.Context, env *Env, call Call, a *listResourcesArgs) (string, error) {
	if env.Registry == nil {
		return "no MCP servers are configured", nil
	}
	var hidden []string
	rs, err := env.Registry.Resources(ctx, func(servers []string) []string {
		// Listing follows each server's policy as reading does: deny
		// leaves the server out, ask puts one card for all of them.
		var keep, ask []string
		for _, server := range servers {
			if a.Server != "" && server != a.Server {
				continue
			}
			switch d := env.resourceDecision(server, "list"); d.Action {
			case trust.Deny:
				hidden = append(hidden, server+" ("+d.Reason+")")
			case trust.Allow:
				keep = append(keep, server)
			default:
				ask = append(ask, server)
			}
		}
		if len(ask) == 0 {
			// Nothing to ask: allowed, the call acts now.
			call.Gate(ctx, trust.Decision{Action: trust.Allow}, wire.Approval{}, Keep{})
			return keep
		}
		var detail []string
		for _, server := range ask {
			detail = append(detail, trust.Visible(server)+" · resources/list")
		}
		card := wire.Approval{Kind: wire.ApprovalMCPCall, Title: "List the resources of " + visibleList(ask) + "?",
			Detail: strings.Join(detail, "\n"), Tool: "resources/list", Arguments: json.RawMessage(`{}`),
			Options: []wire.ApprovalOption{AllowOnce, RejectOnce}}
		if len(ask) == 1 {
			card.Server = ask[0]
		}
		if _, err := call.Gate(ctx, trust.Decision{Action: trust.Ask}, card, Keep{}); err != nil {
			for _, server := range ask {
				hidden = append(hidden, server+" (listing them was not allowed)")
			}
			return keep
		}
		return append(keep, ask...)
	})
	if err != nil {
		return "", fmt.Errorf("list_mcp_resources: %w", err)
	}
	var b strings.Builder
	for _, r := range rs {
		if a.Server != "" && r.Server != a.Server {
			continue
		}
		if r.URITemplate != "" {
			// A template: the model fills it in and reads the result.
			fmt.Fprintf(&b, "%s · template %s · %s", r.Server, r.URITemplate, r.Name)
		} else {
			fmt.Fprintf(&b, "%s · %s · %s", r.Server, r.URI, r.Name)
		}
		if r.MIMEType != "" {
			fmt.Fprintf(&b, " (%s)", r.MIMEType)
		}
		if r.Description != "" {
			fmt.Fprintf(&b, ": %s", capText(r.Description, 200))
		}
		b.WriteByte('\n')
	}
	for _, h := range hidden {
		fmt.Fprintf(&b, "(the resources of %s are not listed)\n", h)
	}
	if b.Len() == 0 {
		return "no MCP resources are available", nil
	}
	return b.String(), nil
}

// resourcePolicyName is the name [mcp.policy] decides listing ("list") or
// reading ("read") server's resources by: one of the server's own names, so
// "server__*" and "*" cover it, with a ':' no tool name has, so no tool's
// rule or "always allow" does.
func resourcePolicyName(server, op string) string { return server + "__resources:" + op }

// resourceDecision is the policy's decision for listing or reading server's
// resources: the same rules as a call of one of its tools.
func (env *Env) resourceDecision(server, op string) trust.Decision {
	return env.policy().ClassifyCall(trust.ToolInfo{Name: resourcePolicyName(server, op), Server: server})
}

// visibleList names servers for a card title: "a", "a and b", "a, b and c".
func visibleList(names []string) string {
	v := make([]string, len(names))
	for i, n := range names {
		v[i] = trust.Visible(n)
	}
	if len(v) == 1 {
		return v[0]
	}
	return strings.Join(v[:len(v)-1], ", ") + " and " + v[len(v)-1]
}

func readResource(ctx context.Context, env *Env, call Call, a *readResourceArgs) (string, error) {
	if a.Server == "" || a.URI == "" {
		return "", errors.New("read_mcp_resource: server and uri are both required (see list_mcp_resources)")
	}
	if env.Registry == nil {
		return "", errors.New("read_mcp_resource: no MCP servers are configured")
	}
	// A resource is the server's data, as a tool result is: reading it
	// follows the server's policy (red-team finding 7). "Always allow" is
	// not offered: a resource has no definition to bind it to; a rule is.
	name := a.Server + " · resources/read"
	args, _ := json.Marshal(map[string]string{"uri": a.URI})
	if err := gate(ctx, call, env.resourceDecision(a.Server, "read"), wire.Approval{
		Kind: wire.ApprovalMCPCall, Title: "Read " + trust.Visible(a.URI) + " from " + trust.Visible(a.Server) + "?",
		Detail: trust.Visible(name) + "\n" + trust.VisibleText(indentJSON(args)),
		Server: a.Server, Tool: "resources/read", Arguments: args,
		Options: []wire.ApprovalOption{AllowOnce, RejectOnce},
	}); err != nil {
		return "", err
	}
	rc, err := env.Registry.ReadResource(ctx, a.Server, a.URI)
	if err != nil {
		return "", fmt.Errorf("read_mcp_resource: %w", err)
	}
	if rc.Blob == nil {
		return rc.Text, nil
	}
	// Binary content never goes to the model inline: it lands in a private
	// temp file the model can point a tool at.
	ext := ""
	if exts, _ := mime.ExtensionsByType(rc.MIMEType); len(exts) > 0 {
		ext = exts[0]
	}
	f, err := os.CreateTemp("", "agentls-resource-*"+ext)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(rc.Blob); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	mt := rc.MIMEType
	if mt == "" {
		mt = "unknown type"
	}
	return fmt.Sprintf("binary content (%s, %d bytes) of %s saved to %s", mt, len(rc.Blob), a.URI, f.Name()), nil
}
