package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
)

// appServer is the real MCP App server on npm
// (@modelcontextprotocol/server-basic-vanillajs, its get-time tool names
// ui://get-time/mcp-app.html) on stdio.
func appServer(t testing.TB, name string) config.Server {
	return config.Server{Name: name, Origin: config.User, Cwd: t.TempDir(), Command: testenv.Tool(t, "node"),
		Args:           []string{testenv.NodeBin(t, "mcp-server-basic-vanillajs"), "--stdio", newMarker(t)},
		ConnectTimeout: 60 * time.Second, ListTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
}

// TestAppOfARealServer: the tool's _meta.ui.resourceUri is kept on its
// definition, App reads that resource (the HTML, its MIME type checked),
// and a URI no tool of the server names is refused, so a front cannot
// read any other resource through it.
func TestAppOfARealServer(t *testing.T) {
	r := startRegistry(t, []config.Server{appServer(t, "basic")}, Options{})
	if info := serverInfo(t, r, "basic"); info.State != Connected {
		t.Fatalf("state %s: %s\n%s", info.State, info.Error, info.StderrTail)
	}
	var ui string
	for _, tl := range r.Tools() {
		if tl.Name == "basic__get-time" {
			ui = tl.UI
		}
	}
	if ui != "ui://get-time/mcp-app.html" {
		t.Fatalf("get-time's UI = %q", ui)
	}
	app, err := r.App(context.Background(), "basic", ui)
	if err != nil {
		t.Fatal(err)
	}
	if app.URI != ui || !strings.Contains(app.HTML, "<html") || len(app.HTML) < 1000 {
		t.Errorf("App = %s, %d bytes", app.URI, len(app.HTML))
	}
	for _, bad := range []string{"ui://other/x.html", "file:///etc/passwd", ""} {
		if _, err := r.App(context.Background(), "basic", bad); err == nil || !strings.Contains(err.Error(), "offers the UI") {
			t.Errorf("App(%q): %v; want refused", bad, err)
		}
	}
	if _, err := r.App(context.Background(), "nope", ui); err == nil {
		t.Error("App of an unknown server: no error")
	}
}

// TestAppCSPOrigins: only http(s)/ws(s) origins reach the policy; a value
// that would add a directive or a path is dropped.
func TestAppCSPOrigins(t *testing.T) {
	got := origins([]any{"https://api.example.com", "https://*.cdn.example", "wss://rt.example:8443",
		"https://a.example; script-src *", "https://b.example/path", "javascript:alert(1)", "*", "'unsafe-inline'",
		"data:", "https://c.example'", 7, "http://localhost:3000"})
	want := []string{"https://api.example.com", "https://*.cdn.example", "wss://rt.example:8443", "http://localhost:3000"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("origins = %q; want %q", got, want)
	}
}
