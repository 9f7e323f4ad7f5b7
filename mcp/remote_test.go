package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
)

func remoteServer(name, u string, headers map[string]string) config.Server {
	return config.Server{Name: name, Origin: config.User, URL: u, Headers: headers,
		ConnectTimeout: 2 * time.Second, ListTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
}

// TestRemoteStreamableAndSSE connects the real server-everything over
// Streamable HTTP and, for the fallback, in its HTTP+SSE mode; calls a tool
// on each, calls again after the connect timeout has passed (the SSE
// stream once hung off the connect attempt's context, so the session died
// when dial returned and the next call failed with "the server was stopped
// during the call"), and checks that Close ends the Streamable HTTP session
// with a DELETE the server acknowledges.
func TestRemoteStreamableAndSSE(t *testing.T) {
	streamable := testenv.EverythingHTTP(t, "streamableHttp")
	sse := testenv.EverythingHTTP(t, "sse")
	r := startRegistry(t, []config.Server{
		remoteServer("everything_http", streamable.URL, nil),
		remoteServer("everything_sse", sse.URL, nil),
	}, Options{})
	for name, transport := range map[string]string{"everything_http": "streamable-http", "everything_sse": "sse"} {
		info := serverInfo(t, r, name)
		if info.State != Connected {
			t.Fatalf("%s: state %s: %s", name, info.State, info.Error)
		}
		if info.Transport != transport || len(info.Tools) < 5 || len(info.Command) != 0 {
			t.Errorf("%s: transport %q, %d tools, command %q", name, info.Transport, len(info.Tools), info.Command)
		}
	}
	mustCall(t, r, "everything_http__echo", `{"message":"over http"}`, "Echo: over http")
	mustCall(t, r, "everything_sse__echo", `{"message":"over sse"}`, "Echo: over sse")
	time.Sleep(2500 * time.Millisecond) // past connect_timeout
	mustCall(t, r, "everything_http__echo", `{"message":"later"}`, "Echo: later")
	mustCall(t, r, "everything_sse__echo", `{"message":"later"}`, "Echo: later")
	if info := serverInfo(t, r, "everything_sse"); info.State != Connected {
		t.Fatalf("sse server after the calls: %s %s", info.State, info.Error)
	}
	r.Close()
	if !streamable.WaitOutput("Received session termination request for session", 10*time.Second) {
		t.Errorf("Close sent no DELETE the server saw; its output:\n%s", streamable.Output())
	}
}

// recorder is a reverse proxy to a real server that notes the value of one
// header on every request it gets.
type recorder struct {
	mu   sync.Mutex
	seen []string
	srv  *httptest.Server
}

func newRecorder(t *testing.T, header string, next http.Handler) *recorder {
	rec := &recorder{}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec.mu.Lock()
		rec.seen = append(rec.seen, req.Method+" "+req.URL.Path+" "+req.Header.Get(header))
		rec.mu.Unlock()
		next.ServeHTTP(w, req)
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// TestRemoteHeadersOnlyToTheOrigin: the configured header, expanded from
// the environment, reaches the URL's origin; when that origin redirects
// to another origin (another port of the same host), the redirected
// requests carry no trace of it. The list shows the header's name only.
// Seen failing with headers added to every request.
func TestRemoteHeadersOnlyToTheOrigin(t *testing.T) {
	everything := testenv.EverythingHTTP(t, "streamableHttp")
	target, _ := url.Parse(everything.Base)
	proxy := httputil.NewSingleHostReverseProxy(target)
	// Another origin, in front of the real server.
	other := newRecorder(t, "Authorization", proxy)
	// The configured origin: redirects every request to the other one.
	first := newRecorder(t, "Authorization", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, other.srv.URL+req.URL.Path, http.StatusTemporaryRedirect)
	}))
	const secret = "s3cr3t-token-value"
	t.Setenv("AGENTLS_TEST_REMOTE_TOKEN", secret)
	// Direct: the header arrives.
	direct := newRecorder(t, "Authorization", proxy)
	r := startRegistry(t, []config.Server{
		remoteServer("direct", direct.srv.URL+"/mcp", map[string]string{"Authorization": "Bearer ${AGENTLS_TEST_REMOTE_TOKEN}"}),
		remoteServer("redirected", first.srv.URL+"/mcp", map[string]string{"Authorization": "Bearer ${AGENTLS_TEST_REMOTE_TOKEN}"}),
	}, Options{})
	for _, name := range []string{"direct", "redirected"} {
		if info := serverInfo(t, r, name); info.State != Connected {
			t.Fatalf("%s: %s %s", name, info.State, info.Error)
		}
	}
	mustCall(t, r, "direct__echo", `{"message":"a"}`, "Echo: a")
	mustCall(t, r, "redirected__echo", `{"message":"b"}`, "Echo: b")
	for _, req := range direct.requests() {
		if !strings.HasSuffix(req, "Bearer "+secret) {
			t.Errorf("a request to the configured origin lacked the header: %q", req)
		}
	}
	if len(first.requests()) == 0 || len(other.requests()) == 0 {
		t.Fatalf("the redirect was not exercised: first %q, other %q", first.requests(), other.requests())
	}
	for _, req := range first.requests() {
		if !strings.HasSuffix(req, "Bearer "+secret) {
			t.Errorf("a request to the configured origin lacked the header: %q", req)
		}
	}
	for _, req := range other.requests() {
		if strings.Contains(req, secret) || strings.Contains(req, "Bearer") {
			t.Errorf("the header reached another origin through a redirect: %q", req)
		}
	}
	b, _ := json.Marshal(r.Servers())
	if strings.Contains(string(b), secret) || !strings.Contains(string(b), `"headerNames":["Authorization"]`) {
		t.Errorf("server list: %s", b)
	}
}

// TestRemoteUnsetVariable: a header reading an unset variable fails the
// server with a message naming the header and the variable; nothing is sent.
func TestRemoteUnsetVariable(t *testing.T) {
	rec := newRecorder(t, "Authorization", http.NotFoundHandler())
	r := startRegistry(t, []config.Server{
		remoteServer("x", rec.srv.URL+"/mcp", map[string]string{"Authorization": "Bearer ${AGENTLS_TEST_SURELY_UNSET}"}),
	}, Options{})
	info := serverInfo(t, r, "x")
	if info.State != Failed || !strings.Contains(info.Error, "header Authorization") || !strings.Contains(info.Error, "AGENTLS_TEST_SURELY_UNSET") {
		t.Errorf("state %s, error %q", info.State, info.Error)
	}
	if got := rec.requests(); len(got) != 0 {
		t.Errorf("requests were sent: %q", got)
	}
}

// headerLog is a reverse proxy to a real server that notes, per request,
// the routing headers (Mcp-Method, Mcp-Name), the Authorization header
// and every Mcp-Param-* header it got.
type headerLog struct {
	mu   sync.Mutex
	seen []string
	srv  *httptest.Server
}

func newHeaderLog(t *testing.T, next http.Handler) *headerLog {
	l := &headerLog{}
	l.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		line := req.Method + " " + req.Header.Get("Mcp-Method")
		if n := req.Header.Get("Mcp-Name"); n != "" {
			line += " " + n
		}
		if a := req.Header.Get("Authorization"); a != "" {
			line += " Authorization=" + a
		}
		for k, vs := range req.Header {
			if strings.HasPrefix(k, "Mcp-Param-") {
				line += " " + k + "=" + strings.Join(vs, ",")
			}
		}
		l.mu.Lock()
		l.seen = append(l.seen, line)
		l.mu.Unlock()
		next.ServeHTTP(w, req)
	}))
	t.Cleanup(l.srv.Close)
	return l
}

func (l *headerLog) requests() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.seen, "\n")
}

// TestRemoteParamHeadersOnlyToTheOrigin: a 2026-07-28 server (the official
// TypeScript SDK v2 over Streamable HTTP) whose tool carries an argument in
// a header (x-mcp-header: Mcp-Param-Region) gets it at its own origin; when
// that origin redirects the call to another origin, the redirected request
// carries no Mcp-Param-* header (nor the configured Authorization), though
// the SDK had set it on the request the HTTP client copies across the
// redirect. Seen failing with Mcp-Param-Region=eu-secret-1 at the other
// origin.
func TestRemoteParamHeadersOnlyToTheOrigin(t *testing.T) {
	v2 := testenv.MCPv2EchoHTTP(t)
	target, _ := url.Parse(v2.Base)
	proxy := httputil.NewSingleHostReverseProxy(target)
	other := newHeaderLog(t, proxy)
	// The configured origin serves everything itself but sends tools/call
	// of "region" elsewhere.
	redirecting := newHeaderLog(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Mcp-Method") == "tools/call" && req.Header.Get("Mcp-Name") == "region" {
			http.Redirect(w, req, other.srv.URL+req.URL.Path, http.StatusTemporaryRedirect)
			return
		}
		proxy.ServeHTTP(w, req)
	}))
	direct := newHeaderLog(t, proxy)
	t.Setenv("AGENTLS_TEST_REMOTE_TOKEN", "s3cr3t-token-value")
	auth := map[string]string{"Authorization": "Bearer ${AGENTLS_TEST_REMOTE_TOKEN}"}
	r := startRegistry(t, []config.Server{
		remoteServer("direct", direct.srv.URL+"/mcp", auth),
		remoteServer("redirected", redirecting.srv.URL+"/mcp", auth),
	}, Options{})
	for _, name := range []string{"direct", "redirected"} {
		if info := serverInfo(t, r, name); info.State != Connected || info.Revision != "2026-07-28" {
			t.Fatalf("%s: %s %s %s: this test needs a 2026-07-28 server", name, info.State, info.Revision, info.Error)
		}
	}
	mustCall(t, r, "direct__region", `{"region":"eu-secret-1","text":"hi"}`, "eu-secret-1: hi")
	if got := direct.requests(); !strings.Contains(got, "POST tools/call region Authorization=Bearer s3cr3t-token-value Mcp-Param-Region=eu-secret-1") {
		t.Errorf("the server's own origin did not get the parameter header; it got:\n%s", got)
	}
	call(t, r, "redirected__region", `{"region":"eu-secret-1","text":"hi"}`)
	if got := redirecting.requests(); !strings.Contains(got, "POST tools/call region Authorization=Bearer s3cr3t-token-value Mcp-Param-Region=eu-secret-1") {
		t.Errorf("the configured origin did not get the call with its header; it got:\n%s", got)
	}
	got := other.requests()
	if !strings.Contains(got, "POST tools/call region") {
		t.Fatalf("the redirect was not followed, so this shows nothing; the other origin got:\n%s", got)
	}
	if strings.Contains(got, "Mcp-Param-") || strings.Contains(got, "eu-secret-1") || strings.Contains(got, "Authorization") {
		t.Errorf("a parameter header or the credential reached another origin through a redirect:\n%s", got)
	}
}

// TestRemoteSessionIDOnlyToTheOrigin: a 2025-11-25 server over Streamable
// HTTP with no Authorization (server-everything) is reached through an
// origin that serves the session itself but redirects tools/call, carrying
// the Mcp-Session-Id that origin handed out, to another origin. For
// such a server the session id is the credential: whoever holds it acts as
// this client in that session. The other origin must never see it. Seen
// failing with "POST /mcp <the session id>" at the other origin.
func TestRemoteSessionIDOnlyToTheOrigin(t *testing.T) {
	everything := testenv.EverythingHTTP(t, "streamableHttp")
	target, _ := url.Parse(everything.Base)
	proxy := httputil.NewSingleHostReverseProxy(target)
	other := newRecorder(t, "Mcp-Session-Id", proxy)
	first := newRecorder(t, "Mcp-Session-Id", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		if strings.Contains(string(body), `"method":"tools/call"`) {
			http.Redirect(w, req, other.srv.URL+req.URL.Path, http.StatusTemporaryRedirect)
			return
		}
		proxy.ServeHTTP(w, req)
	}))
	r := startRegistry(t, []config.Server{remoteServer("redirected", first.srv.URL+"/mcp", nil)}, Options{})
	info := serverInfo(t, r, "redirected")
	if info.State != Connected || info.Revision != "2025-11-25" {
		t.Fatalf("this test needs a 2025-11-25 server (a session id): %s %s %s", info.State, info.Revision, info.Error)
	}
	call(t, r, "redirected__echo", `{"message":"b"}`)
	var session string
	for _, req := range first.requests() {
		if f := strings.Fields(req); len(f) == 3 {
			session = f[2]
		}
	}
	if session == "" {
		t.Fatalf("the server never got a session id back, so this shows nothing: %q", first.requests())
	}
	got := other.requests()
	if len(got) == 0 {
		t.Fatalf("the redirect was not followed, so this shows nothing (first origin: %q)", first.requests())
	}
	for _, req := range got {
		if strings.Contains(req, session) || len(strings.Fields(req)) > 2 {
			t.Errorf("the session id reached another origin through a redirect: %q", req)
		}
	}
}
