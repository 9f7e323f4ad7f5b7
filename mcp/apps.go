package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP Apps (the official extension io.modelcontextprotocol/ui): a tool
// names the HTML of its UI as a ui:// resource in _meta.ui.resourceUri,
// and an editor that can show it renders that HTML in a sandbox and
// passes the call's input and result in. The registry only finds and
// reads the resource; what may run it is the front's sandbox, and what
// the App may call goes through the core's gate like any other call.

// AppMIMEType is the MIME type of an App's HTML.
const AppMIMEType = "text/html;profile=mcp-app"

// appMaxBytes caps an App's HTML: it is a whole page with its scripts
// inlined (server-basic-vanillajs's is 218 KB), never sent to the model.
const appMaxBytes = 4 << 20

// App is the UI a server's tool offers, as its server serves it.
type App struct {
	URI  string
	HTML string
	// CSP are the origins the App says it needs (its resource's
	// _meta.ui.csp), each checked to be an http(s) origin: anything else
	// is dropped, so nothing the server writes can add a directive.
	CSP           AppCSP
	PrefersBorder *bool
}

// AppCSP are the origins of an App's content security policy.
type AppCSP struct {
	ConnectDomains  []string // fetch, XHR, WebSocket
	ResourceDomains []string // scripts, styles, images, fonts, media
	FrameDomains    []string // nested frames
}

// uiResourceURI is the ui:// resource a _meta names (_meta.ui.resourceUri,
// or the older flat "ui/resourceUri"), or "".
func uiResourceURI(meta map[string]any) string {
	var u string
	if ui, ok := meta["ui"].(map[string]any); ok {
		u, _ = ui["resourceUri"].(string)
	}
	if u == "" {
		u, _ = meta["ui/resourceUri"].(string)
	}
	if !strings.HasPrefix(u, "ui://") {
		return ""
	}
	return u
}

// App reads the UI resource uri of server: one that a tool of that
// server names (a front cannot use this to read any other resource), as
// text of type AppMIMEType.
func (r *Registry) App(ctx context.Context, server, uri string) (*App, error) {
	r.mu.Lock()
	srv, ok := r.servers[server]
	if !ok {
		r.mu.Unlock()
		return nil, fmt.Errorf("mcp: no server named %q is configured", server)
	}
	declared := false
	for _, d := range srv.tools {
		declared = declared || d.ui == uri
	}
	c, state := srv.conn, srv.state
	r.mu.Unlock()
	if !declared {
		return nil, fmt.Errorf("mcp: no tool of %s offers the UI %q", server, uri)
	}
	if state != Connected || c == nil {
		return nil, fmt.Errorf("mcp: %s is not connected (%s)", server, state)
	}
	rctx, cancel := context.WithTimeout(ctx, srv.cfg.EffectiveCallTimeout())
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	res, err := c.session.ReadResource(nobodyToAsk(rctx), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("mcp: %s: resources/read %s: %w", server, uri, err)
	}
	for _, rc := range res.Contents {
		if rc == nil || rc.URI != uri {
			continue
		}
		if rc.MIMEType != AppMIMEType {
			return nil, fmt.Errorf("mcp: %s: %s is %q, not an App (%s)", server, uri, rc.MIMEType, AppMIMEType)
		}
		if len(rc.Text) > appMaxBytes {
			return nil, fmt.Errorf("mcp: %s: the App %s is %d bytes, over %d", server, uri, len(rc.Text), appMaxBytes)
		}
		app := &App{URI: uri, HTML: rc.Text}
		if ui, ok := rc.Meta["ui"].(map[string]any); ok {
			if csp, ok := ui["csp"].(map[string]any); ok {
				app.CSP = AppCSP{ConnectDomains: origins(csp["connectDomains"]), ResourceDomains: origins(csp["resourceDomains"]),
					FrameDomains: origins(csp["frameDomains"])}
			}
			if b, ok := ui["prefersBorder"].(bool); ok {
				app.PrefersBorder = &b
			}
		}
		return app, nil
	}
	return nil, errors.New("mcp: " + server + ": resources/read " + uri + " returned no content for that URI")
}

// origins keeps the entries of v that are http(s) or ws(s) origins
// (a "*." first label allowed), as a CSP source list takes them.
func origins(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		s, _ := e.(string)
		u, err := url.Parse(s)
		if err != nil || u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || s != u.Scheme+"://"+u.Host {
			continue
		}
		switch u.Scheme {
		case "https", "http", "wss", "ws":
		default:
			continue
		}
		host := strings.TrimPrefix(u.Hostname(), "*.")
		if host == "" || strings.ContainsAny(host, "*;,' \"") {
			continue
		}
		out = append(out, s)
	}
	return out
}
