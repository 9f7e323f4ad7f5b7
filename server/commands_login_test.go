package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestMCPLoginCommandOpensTheAuthorizationPage: a remote server behind
// OAuth fails to connect (no token); agentls.mcp.login opens the
// authorization page through window/showDocument (external), the client
// follows it as a browser would (the authorization server redirects to
// agentls's loopback listener), the token is stored, the server restarts
// connected and its tools answer.
func TestMCPLoginCommandOpensTheAuthorizationPage(t *testing.T) {
	everything := testenv.EverythingHTTP(t, "streamableHttp")
	target, _ := url.Parse(everything.Base)
	proxy := httputil.NewSingleHostReverseProxy(target)
	as := testenv.NewAuthServer(t)
	rs := as.Protect(t, func(_ string, w http.ResponseWriter, r *http.Request) { proxy.ServeHTTP(w, r) })
	e := newEnv(t, fmt.Sprintf("[mcp.servers.secure]\nurl = %q\n\n[mcp.policy]\n\"secure__echo\" = \"allow\"\n", rs.URL+"/mcp"))
	c := e.start(t)
	var opened []string
	c.setAnswer(func(method string, params json.RawMessage) (any, error) {
		if method == "window/showDocument" {
			var p struct {
				URI      string `json:"uri"`
				External bool   `json:"external"`
			}
			json.Unmarshal(params, &p)
			opened = append(opened, p.URI)
			if !p.External || !strings.HasPrefix(p.URI, as.Srv.URL+"/authorize?") {
				return map[string]bool{"success": false}, nil
			}
			// The browser: follow the page's redirect to the loopback listener.
			resp, err := http.Get(p.URI)
			if err != nil {
				return nil, err
			}
			resp.Body.Close()
			return map[string]bool{"success": resp.StatusCode == http.StatusOK}, nil
		}
		return defaultAnswer(method, params)
	})
	cp := caps(false, false, false)
	cp["window"].(map[string]any)["showDocument"] = map[string]any{"support": true}
	c.initialize(e.root, cp)
	if row := c.waitState("secure", "failed"); !strings.Contains(row.Error, "agentls.mcp.login") {
		t.Errorf("the failure does not say how to log in: %q", row.Error)
	}
	var res map[string]string
	c.mustCall("workspace/executeCommand", map[string]any{"command": "agentls.mcp.login", "arguments": []any{"secure"}}, &res)
	if res["state"] != "failed" {
		t.Errorf("state now %v", res)
	}
	c.waitFor("the login's end", func(m message) bool {
		return m.Method == "window/showMessage" && strings.Contains(string(m.Params), "agentls: MCP server 'secure': logged in (connected)")
	})
	if len(opened) != 1 || as.Authorized.Load() != 1 {
		t.Fatalf("opened %v, %d authorization requests", opened, as.Authorized.Load())
	}
	c.waitState("secure", "connected")
	e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "secure__echo", Input: `{"message":"after login"}`}}},
		modeltest.Turn{Text: "echoed"})
	c.await(c.runAsync(map[string]any{"prompt": "echo"}))
	if got := toolResult(t, e.model); got.IsError || got.Content != "Echo: after login" {
		t.Fatalf("tool result %+v", got)
	}
}
