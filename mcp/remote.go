package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// dialRemote connects a remote server (url = ...): Streamable HTTP first,
// where the SDK opens with server/discover (2026-07-28) and falls back to
// initialize (2025-11-25 and older) when the server refuses it; when the
// server answers the initialize POST with a 4xx other than 401/403 (an
// older server that has no such endpoint), the HTTP+SSE transport of
// protocol version 2024-11-05 on the same URL, as the specification's
// backwards-compatibility section says. Header values are expanded from the
// environment here, held only by this connection's HTTP client, and sent
// only to the URL's origin.
func dialRemote(ctx context.Context, dc dialConfig) (*conn, []*sdk.Tool, error) {
	s := dc.server
	u, err := url.Parse(s.URL)
	if err != nil {
		return nil, nil, fmt.Errorf("url: %w", err)
	}
	headers, err := s.ExpandedHeaders(os.LookupEnv)
	if err != nil {
		return nil, nil, err
	}
	ht := newHeaderTransport(u, headers)
	hc := &http.Client{Transport: ht}

	c := newConn(dc, "streamable-http")
	c.bodyBroke = &ht.bodyBroke
	c.ctx, c.cancel = context.WithCancel(context.Background())
	cctx, cancel := context.WithTimeout(ctx, dc.connectTimeout)
	defer cancel()

	st := &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, MaxEventSize: dc.messageMax}
	if dc.tokens != nil && s.Headers["Authorization"] == "" {
		h, release, err := oauthFor(dc)
		if err != nil {
			return nil, nil, err
		}
		st.OAuthHandler, c.release = h, release
	}
	session, err := c.client(dc.roots).Connect(cctx, st, nil)
	if err != nil && cctx.Err() == nil && fallbackStatus(ht.lastPost.Load()) {
		status := ht.lastPost.Load()
		fmt.Fprintf(dc.tail, "[transport] %s answered the Streamable HTTP initialize with HTTP %d; trying the older HTTP+SSE transport\n", u.Redacted(), status)
		dc.logf("mcp: %s: Streamable HTTP initialize got HTTP %d; falling back to HTTP+SSE", s.Name, status)
		c.transport = "sse"
		session, err = c.client(dc.roots).Connect(cctx, &lifeTransport{inner: &sdk.SSEClientTransport{Endpoint: s.URL, HTTPClient: hc, MaxEventSize: dc.messageMax}, life: c.ctx}, nil)
	}
	if err != nil {
		return nil, nil, c.fail(ctx, "connect", dc.connectTimeout, "initialize over "+c.transport, err)
	}
	return c.initialized(ctx, dc, session)
}

// fallbackStatus is true for the answers that mean "no Streamable HTTP
// endpoint here": a 4xx that is not about authorization.
func fallbackStatus(status int32) bool {
	return status >= 400 && status < 500 && status != http.StatusUnauthorized && status != http.StatusForbidden
}

// lifeTransport connects its inner transport with a context that lives as
// long as the connection, not as long as the connect attempt. The SSE
// transport ties its hanging GET to the context Connect gets: given the
// connect timeout's context, the stream (and with it the session) ended
// the moment dial returned. The attempt's context still aborts a connect
// in progress.
type lifeTransport struct {
	inner sdk.Transport
	life  context.Context
}

func (t *lifeTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	lctx, cancel := context.WithCancel(t.life)
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.inner.Connect(lctx)
	if !stop() {
		// The attempt ended while connecting: lctx is cancelled.
		if conn != nil {
			conn.Close()
		}
		if err == nil {
			err = context.Cause(ctx)
		}
		return nil, err
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return &cancelOnClose{Connection: conn, cancel: cancel}, nil
}

// cancelOnClose releases the stream's context when the connection closes.
type cancelOnClose struct {
	sdk.Connection
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}

// headerTransport adds the configured headers to requests for the server's
// origin (scheme, host and port) and to no other: not to the POST endpoint
// an SSE server names on another host, not across a redirect. Requests to
// another origin also lose any Authorization and the Mcp-Param-* headers
// (call arguments) the SDK set, and an Mcp-Session-Id goes only to the
// origin that issued it. The request
// is cloned; the SDK's own headers are left alone. It also notes the status
// of the last POST, to decide on the SSE fallback: the SDK opens with
// server/discover, which a 2025-11-25 server refuses, and then initialize,
// whose answer is the one that says whether Streamable HTTP is there.
type headerTransport struct {
	base     http.RoundTripper
	origin   string
	headers  http.Header
	lastPost atomic.Int32
	// bodyBroke: a 2026-07-28 response body other than a read-only one's
	// broke off (reissue.go): the calls that fail with the connection's end
	// are told their call may or may not have run.
	bodyBroke atomic.Bool

	mu       sync.Mutex
	sessions map[string]string // Mcp-Session-Id -> the origin that issued it
}

func newHeaderTransport(u *url.URL, headers map[string]string) *headerTransport {
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	return &headerTransport{base: http.DefaultTransport, origin: origin(u), headers: h}
}

// origin is scheme://host:port with the default port made explicit, so
// "https://h" and "https://h:443" are one origin and "http://h" another.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch {
	case origin(req.URL) != t.origin:
		// Another origin (an SSE POST endpoint elsewhere, a redirect, an
		// authorization server): never an access token or a configured
		// header, whoever set it.
		if t.carries(req.Header) {
			req = req.Clone(req.Context())
			for k := range req.Header {
				if t.originOnly(k) {
					req.Header.Del(k)
				}
			}
		}
	case len(t.headers) > 0:
		req = req.Clone(req.Context())
		for k, vs := range t.headers {
			req.Header[k] = vs
		}
	}
	req = t.sessionTo(routeTask(req))
	resp, err := t.base.RoundTrip(req)
	if err == nil {
		t.issued(req, resp)
	}
	if err == nil && req.Method == http.MethodPost {
		t.lastPost.Store(int32(resp.StatusCode))
	}
	if err == nil && origin(req.URL) == t.origin && req.Method == http.MethodPost && resp.StatusCode == http.StatusOK {
		resp = t.unbroken(req, resp)
	}
	if err == nil && origin(req.URL) == t.origin {
		liftTaskBody(resp) // a task result, kept for callOn (task_lift.go)
	}
	return resp, err
}

// carries reports whether h has a header that only the server's origin
// may get (originOnly).
func (t *headerTransport) carries(h http.Header) bool {
	for k := range h {
		if t.originOnly(k) {
			return true
		}
	}
	return false
}

// originOnly reports whether a header (its canonical name) goes to the
// server's origin only, whoever set it: a configured header, an
// Authorization, and the Mcp-Param-* headers (a tool's arguments that
// 2026-07-28 mirrors into headers, x-mcp-header). Go's HTTP client copies
// all but Authorization and Cookie onto a redirect to anywhere.
func (t *headerTransport) originOnly(name string) bool {
	name = http.CanonicalHeaderKey(name)
	if _, ok := t.headers[name]; ok {
		return true
	}
	return name == "Authorization" || paramHeader(name)
}

// sessionTo drops req's Mcp-Session-Id unless the origin req goes to is
// the one that issued that id: for a 2025-11-25 server without
// Authorization the session id is the credential (whoever holds it acts
// in the session), and Go's HTTP client copies it onto a redirect to
// anywhere. An id no answer issued is dropped too.
func (t *headerTransport) sessionTo(req *http.Request) *http.Request {
	id := req.Header.Get("Mcp-Session-Id")
	if id == "" {
		return req
	}
	t.mu.Lock()
	issuer, ok := t.sessions[id]
	t.mu.Unlock()
	if ok && issuer == origin(req.URL) {
		return req
	}
	req = req.Clone(req.Context())
	req.Header.Del("Mcp-Session-Id")
	return req
}

// issued notes the origin that answered with a session id.
func (t *headerTransport) issued(req *http.Request, resp *http.Response) {
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sessions == nil {
		t.sessions = map[string]string{}
	}
	if _, ok := t.sessions[id]; !ok {
		t.sessions[id] = origin(req.URL)
	}
}

// paramHeader reports whether a header name (canonical, as http.Header
// keys are) is one of MCP 2026-07-28's Mcp-Param-* headers, which carry a
// tool call's arguments.
func paramHeader(name string) bool {
	return strings.HasPrefix(http.CanonicalHeaderKey(name), "Mcp-Param-")
}
