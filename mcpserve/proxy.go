package mcpserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// Proxy serves one stdio connection (newline-delimited JSON-RPC on in and
// out) by passing every message to an editor session's HTTP endpoint, over
// its unix socket (never its TCP port: socket.go), and every answer back,
// unchanged: the outside agent's own initialize (its
// clientInfo) reaches the editor, whose cards then name it. Each request
// is its own POST, so a call waiting on a card holds up no other. It ends
// when in ends (the session is then deleted) or ctx does.
func Proxy(ctx context.Context, e Endpoint, in io.Reader, out io.Writer) error {
	if err := loopbackURL(e.URL); err != nil {
		return err
	}
	if e.Socket == "" {
		return fmt.Errorf("mcpserve: the editor session (pid %d) publishes no socket (an older agentls?): restart the editor", e.PID)
	}
	if err := privateSocket(e.Socket); err != nil {
		return fmt.Errorf("mcpserve: the editor session's socket: %w", err)
	}
	token, err := e.ReadToken()
	if err != nil {
		return fmt.Errorf("mcpserve: the editor session's token: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The URL is only the requests' Host; every connection is the socket.
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return dialUnix(ctx, e.Socket) }}
	defer tr.CloseIdleConnections()
	p := &proxy{url: e.URL, token: token, out: out, client: &http.Client{Transport: tr}}
	// posts are the requests in flight, answered before Proxy returns;
	// streams the GET stream, which ends with ctx.
	var posts, streams sync.WaitGroup
	defer streams.Wait()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		msg := append([]byte(nil), line...)
		posts.Add(1)
		go func() {
			defer posts.Done()
			p.post(ctx, msg, &streams)
		}()
	}
	posts.Wait()
	p.end(ctx)
	cancel()
	return sc.Err()
}

type proxy struct {
	url, token string
	client     *http.Client

	outMu sync.Mutex
	out   io.Writer

	mu        sync.Mutex
	session   string // Mcp-Session-Id
	version   string // the negotiated revision, once initialize answered
	listening bool   // the GET stream for the server's own messages runs
}

// write passes one message to the client, one line.
func (p *proxy) write(msg []byte) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 {
		return
	}
	p.outMu.Lock()
	defer p.outMu.Unlock()
	p.out.Write(append(msg, '\n'))
}

func (p *proxy) headers(req *http.Request, msg []byte) {
	req.Header.Set("Authorization", "Bearer "+p.token)
	req.Header.Set("Accept", "application/json, text/event-stream")
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.session != "" {
		req.Header.Set("Mcp-Session-Id", p.session)
	}
	h := routing(msg)
	if h.version == "" {
		h.version = p.version
	}
	if h.version != "" {
		req.Header.Set("Mcp-Protocol-Version", h.version)
	}
	if h.version >= "2026-07-28" && h.method != "" {
		// The 2026-07-28 revision routes on these; the server checks
		// them against the body.
		req.Header.Set("Mcp-Method", h.method)
		if h.name != "" {
			req.Header.Set("Mcp-Name", h.name)
		}
	}
}

// route is what a request's headers say of it: the revision its _meta
// names (2026-07-28), its method and the name it acts on (a tool's or a
// prompt's name, a resource's URI).
type route struct{ version, method, name string }

func routing(msg []byte) route {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
			Name string                     `json:"name"`
			URI  string                     `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return route{}
	}
	r := route{method: m.Method}
	json.Unmarshal(m.Params.Meta["io.modelcontextprotocol/protocolVersion"], &r.version)
	switch m.Method {
	case "tools/call", "prompts/get":
		r.name = m.Params.Name
	case "resources/read":
		r.name = m.Params.URI
	}
	return r
}

// post sends one message and passes its answers back.
func (p *proxy) post(ctx context.Context, msg []byte, wg *sync.WaitGroup) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(msg))
	if err != nil {
		p.fail(msg, err.Error())
		return
	}
	req.Header.Set("Content-Type", "application/json")
	p.headers(req, msg)
	resp, err := p.client.Do(req)
	if err != nil {
		p.fail(msg, "the editor session did not answer: "+err.Error())
		return
	}
	defer resp.Body.Close()
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		p.mu.Lock()
		p.session = id
		p.mu.Unlock()
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case resp.StatusCode == http.StatusAccepted:
	case strings.HasPrefix(ct, "text/event-stream"):
		p.events(ctx, resp.Body, wg)
	case strings.HasPrefix(ct, "application/json"):
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		p.seen(ctx, b, wg)
		p.write(b)
	default:
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		p.fail(msg, fmt.Sprintf("the editor session answered %s: %s", resp.Status, strings.TrimSpace(string(b))))
	}
}

// events passes an SSE stream's messages back.
func (p *proxy) events(ctx context.Context, body io.Reader, wg *sync.WaitGroup) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var data bytes.Buffer
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data.Len() > 0 {
				p.seen(ctx, data.Bytes(), wg)
				p.write(data.Bytes())
				data.Reset()
			}
		case strings.HasPrefix(line, "data:"):
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if data.Len() > 0 {
		p.write(data.Bytes())
	}
}

// seen notes the revision an initialize answer negotiated; from then on a
// 2025-11-25 session also gets the server's own messages (resource
// updates) over a GET stream.
func (p *proxy) seen(ctx context.Context, msg []byte, wg *sync.WaitGroup) {
	var r struct {
		Result struct {
			ProtocolVersion string          `json:"protocolVersion"`
			ServerInfo      json.RawMessage `json:"serverInfo"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &r) != nil || r.Result.ProtocolVersion == "" || r.Result.ServerInfo == nil {
		return
	}
	p.mu.Lock()
	p.version = r.Result.ProtocolVersion
	start := !p.listening && p.session != "" && p.version < "2026-07-28"
	p.listening = p.listening || start
	p.mu.Unlock()
	if start {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.listen(ctx, wg)
		}()
	}
}

// listen is the GET stream of a session's server-sent messages.
func (p *proxy) listen(ctx context.Context, wg *sync.WaitGroup) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return
	}
	p.headers(req, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := p.client.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		p.events(ctx, resp.Body, wg)
	}
}

// end deletes the session when the client is gone.
func (p *proxy) end(ctx context.Context) {
	p.mu.Lock()
	id := p.session
	p.mu.Unlock()
	if id == "" {
		return
	}
	req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodDelete, p.url, nil)
	if err != nil {
		return
	}
	p.headers(req, nil)
	if resp, err := p.client.Do(req); err == nil {
		resp.Body.Close()
	}
}

// fail answers a request that could not be passed on with a JSON-RPC
// error, so the client is not left waiting (a notification gets none).
func (p *proxy) fail(msg []byte, why string) {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32603, "message": "agentls: " + why}})
	p.write(b)
}

// loopbackURL refuses an endpoint that is not http on this machine's
// loopback: the token goes nowhere else, whatever a file says.
func loopbackURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" {
		return fmt.Errorf("mcpserve: the published endpoint %q is not an http URL", raw)
	}
	switch u.Hostname() {
	case "127.0.0.1", "::1", "localhost":
		return nil
	}
	return fmt.Errorf("mcpserve: the published endpoint %q is not on loopback: the token is sent only to 127.0.0.1", raw)
}
