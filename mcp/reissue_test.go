//go:build unix

package mcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
)

// cutProxy forwards every request to a server and counts them by
// Mcp-Method and Mcp-Name; the first response to each request named in cut
// is cut off half way through its body and its connection closed.
type cutProxy struct {
	mu   sync.Mutex
	seen map[string]int
	cut  map[string]bool
	srv  *httptest.Server
}

func newCutProxy(t *testing.T, base string, cut ...string) *cutProxy {
	p := &cutProxy{seen: map[string]int{}, cut: map[string]bool{}}
	for _, c := range cut {
		p.cut[c] = true
	}
	forward := proxyTo(t, base)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		key := strings.TrimSpace(req.Method + " " + req.Header.Get("Mcp-Method") + " " + req.Header.Get("Mcp-Name"))
		p.mu.Lock()
		p.seen[key]++
		cutThis := p.cut[key]
		delete(p.cut, key)
		p.mu.Unlock()
		if !cutThis {
			forward.ServeHTTP(w, req)
			return
		}
		out, err := http.NewRequestWithContext(req.Context(), req.Method, base+req.URL.Path, req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out.Header = req.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, vs := range resp.Header {
			if k != "Content-Length" {
				w.Header()[k] = vs
			}
		}
		w.WriteHeader(resp.StatusCode)
		body, _ := io.ReadAll(resp.Body)
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the connection is closed mid-body
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *cutProxy) count(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen[key]
}

// TestReissueAfterBrokenStream: on a 2026-07-28 server over Streamable HTTP
// (the official TypeScript SDK v2), a response stream cut before the
// response came is a lost request, which that revision has the client send
// again. agentls sends tools/list and prompts/get again, once, and they
// succeed; a cut tools/call is never sent again (the server got it once)
// and fails saying it may or may not have run.
func TestReissueAfterBrokenStream(t *testing.T) {
	v2HTTP := testenv.MCPv2EchoHTTP(t)
	p := newCutProxy(t, v2HTTP.Base, "POST tools/list", "POST prompts/get hello", "POST tools/call echo")
	logs := &logBuffer{}
	t.Cleanup(func() {
		logs.mu.Lock()
		defer logs.mu.Unlock()
		t.Logf("requests: %v\nlog:\n%s", p.seen, strings.Join(logs.lines, "\n"))
	})
	r := startRegistry(t, []config.Server{remoteServer("v2", p.srv.URL+"/mcp", nil)}, Options{Logf: logs.logf})
	if got := p.count("POST tools/list"); got != 2 {
		t.Errorf("tools/list reached the server %d times, want 2 (the cut one and its re-issue)", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	text, err := r.GetPrompt(ctx, "v2", "hello", nil)
	if err != nil || !strings.Contains(text, "Say hello.") {
		t.Errorf("GetPrompt after a cut stream = %q, %v; want the prompt, re-issued", text, err)
	}
	if got := p.count("POST prompts/get hello"); got != 2 {
		t.Errorf("prompts/get reached the server %d times, want 2", got)
	}
	res := call(t, r, "v2__echo", `{"message":"once"}`)
	if !res.IsError || !strings.Contains(res.Text, "may or may not have run") || !strings.Contains(res.Text, "did not repeat it") {
		t.Errorf("a cut tools/call = %+v; want an error saying it may or may not have run and was not repeated", res)
	}
	if got := p.count("POST tools/call echo"); got != 1 {
		t.Errorf("tools/call reached the server %d times, want 1: a call is never sent twice", got)
	}
	mustCall(t, r, "v2__echo", `{"message":"again"}`, "Echo: again")
}
