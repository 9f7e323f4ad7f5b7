//go:build unix

package mcp

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
)

// TestRevisionPerServer connects, from one registry, real servers of both
// revisions on both transports: the official TypeScript SDK v2 and the Go
// SDK's own server (2026-07-28, server/discover, no initialize) on stdio
// and Streamable HTTP (its handler without sessions); the v1 TypeScript SDK's server-everything
// (2025-11-25) on stdio and Streamable HTTP, and in its HTTP+SSE mode; the
// Go SDK server held to 2025-11-25. Each row says the revision the server
// answered with, and a tool call works on every one; over HTTP, only the
// 2026-07-28 server gets the Mcp-Method and Mcp-Name headers.
func TestRevisionPerServer(t *testing.T) {
	node := testenv.Tool(t, "node")
	v2 := testenv.MCPv2Echo(t)
	v2HTTP := testenv.MCPv2EchoHTTP(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	everythingHTTP := testenv.EverythingHTTP(t, "streamableHttp")
	everythingSSE := testenv.EverythingHTTP(t, "sse")
	goHTTP := startRemoteFault(t, "-stateless")
	goHTTPSessions := startRemoteFault(t)

	v2Stdio := config.Server{Name: "v2_stdio", Origin: config.User, Command: node, Args: []string{v2, "stdio", newMarker(t)},
		Cwd: t.TempDir(), ConnectTimeout: revisionTimeout, ListTimeout: revisionTimeout, CallTimeout: revisionTimeout}
	everythingStdio := config.Server{Name: "everything_stdio", Origin: config.User, Command: node, Args: []string{everything, "stdio", newMarker(t)},
		Cwd: t.TempDir(), ConnectTimeout: revisionTimeout, ListTimeout: revisionTimeout, CallTimeout: revisionTimeout}
	// Two HTTP servers behind proxies that note the routing headers.
	v2Log, everythingLog := newHeaderLog(t, proxyTo(t, v2HTTP.Base)), newHeaderLog(t, proxyTo(t, everythingHTTP.Base))
	servers := []config.Server{
		v2Stdio,
		remoteServer("v2_http", v2Log.srv.URL+"/mcp", nil),
		faultServer(t, "go_stdio"),
		goHTTP.server("go_http", revisionTimeout),
		faultServer(t, "go_legacy", "-roots"),
		goHTTPSessions.server("go_http_sessions", revisionTimeout),
		everythingStdio,
		remoteServer("everything_http", everythingLog.srv.URL+"/mcp", nil),
		remoteServer("everything_sse", everythingSSE.URL, nil),
	}
	for i := range servers {
		if servers[i].Remote() {
			servers[i].ConnectTimeout = revisionTimeout
		}
	}
	r := startRegistry(t, servers, Options{})

	want := []struct{ name, transport, revision, tool, args, text string }{
		{"v2_stdio", "stdio", "2026-07-28", "echo", `{"message":"a"}`, "Echo: a"},
		{"v2_http", "streamable-http", "2026-07-28", "echo", `{"message":"b"}`, "Echo: b"},
		{"go_stdio", "stdio", "2026-07-28", "echo", `{"text":"c"}`, "c"},
		{"go_http", "streamable-http", "2026-07-28", "echo", `{"text":"d"}`, "d"},
		{"go_legacy", "stdio", "2025-11-25", "echo", `{"text":"e"}`, "e"},
		// The SDK's HTTP handler with sessions cannot serve 2026-07-28.
		{"go_http_sessions", "streamable-http", "2025-11-25", "echo", `{"text":"e2"}`, "e2"},
		{"everything_stdio", "stdio", "2025-11-25", "echo", `{"message":"f"}`, "Echo: f"},
		{"everything_http", "streamable-http", "2025-11-25", "echo", `{"message":"g"}`, "Echo: g"},
		{"everything_sse", "sse", "2025-11-25", "echo", `{"message":"h"}`, "Echo: h"},
	}
	for _, w := range want {
		info := serverInfo(t, r, w.name)
		if info.State != Connected {
			t.Errorf("%s: %s: %s", w.name, info.State, info.Error)
			continue
		}
		if info.Transport != w.transport || info.Revision != w.revision {
			t.Errorf("%s: over %q speaking %q, want %q speaking %q", w.name, info.Transport, info.Revision, w.transport, w.revision)
		}
		mustCall(t, r, w.name+"__"+w.tool, w.args, w.text)
	}
	// Mcp-Method and Mcp-Name go with 2026-07-28 requests only.
	if got := v2Log.requests(); !strings.Contains(got, "POST tools/call echo") || !strings.Contains(got, "POST tools/list") {
		t.Errorf("the 2026-07-28 server over HTTP got no routing headers:\n%s", got)
	}
	if got := everythingLog.requests(); strings.Contains(got, "tools/call") || !strings.Contains(got, "POST ") {
		t.Errorf("the 2025-11-25 server over HTTP got routing headers (or nothing):\n%s", got)
	}
}

// proxyTo is a reverse proxy to base (http://HOST:PORT).
func proxyTo(t *testing.T, base string) http.Handler {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return httputil.NewSingleHostReverseProxy(u)
}

// revisionTimeout bounds each step of these servers (node starts slowly
// on a loaded machine); it is a guard, not what is tested.
const revisionTimeout = 60 * time.Second

// TestLogLevelPerRevision: [mcp] log_level reaches servers of both
// revisions: through logging/setLevel on a 2025-11-25 session, in every
// call's _meta on 2026-07-28 (which has no logging/setLevel, and whose
// servers send a request's log messages only at the level it carries). A
// tool's error message reaches agentls's log from each, on stdio and on
// Streamable HTTP, and no server is sent a logging/setLevel it refuses.
func TestLogLevelPerRevision(t *testing.T) {
	goHTTP := startRemoteFault(t, "-stateless")
	servers := []config.Server{faultServer(t, "modern"), goHTTP.server("modern_http", revisionTimeout), faultServer(t, "legacy", "-roots")}
	logs := &logBuffer{}
	r := startRegistry(t, servers, Options{LogLevel: "info", Logf: logs.logf})
	for _, s := range servers {
		mustCall(t, r, s.Name+"__log", `{"text":"disk on fire"}`, "logged")
		eventually(t, s.Name+"'s log message in the log", func() bool {
			return logs.has("mcp: " + s.Name + ": [error] faultserver: disk on fire")
		})
	}
	if logs.has("logging/setLevel") {
		t.Errorf("a server was sent logging/setLevel and refused it")
	}
}
