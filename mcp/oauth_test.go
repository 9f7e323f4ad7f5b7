package mcp

import (
	"context"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
)

// TestOAuthEndToEnd: a remote server (the real server-everything behind a
// bearer-checking proxy) answers 401; the registry discovers the
// authorization server, registers, runs the code flow with PKCE through
// the loopback listener, stores the token (0600), uses it, refreshes it
// when it expires, reuses the stored one in a registry that cannot log in,
// never logs it, and never sends it to another host (the authorization
// server, or a host the server redirects to).
func TestOAuthEndToEnd(t *testing.T) {
	everything := testenv.EverythingHTTP(t, "streamableHttp")
	target, _ := url.Parse(everything.Base)
	proxy := httputil.NewSingleHostReverseProxy(target)
	as := testenv.NewAuthServer(t)
	other := newRecorder(t, "Authorization", proxy)
	var redirect atomic.Bool
	var seen sync.Map
	rs := as.Protect(t, func(tok string, w http.ResponseWriter, r *http.Request) {
		seen.Store(tok, true)
		if redirect.Load() {
			http.Redirect(w, r, other.srv.URL+r.URL.Path, http.StatusTemporaryRedirect)
			return
		}
		proxy.ServeHTTP(w, r)
	})

	store := OpenTokenStore(filepath.Join(t.TempDir(), "state", "oauth-tokens.json"))
	logs := &logBuffer{}
	browser := func(ctx context.Context, server, authURL string) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	srv := remoteServer("secure", rs.URL+"/mcp", nil)
	srv.ConnectTimeout = 30 * time.Second
	r := startRegistry(t, []config.Server{srv}, Options{Tokens: store, Browser: browser, Logf: logs.logf})
	if info := serverInfo(t, r, "secure"); info.State != Connected {
		t.Fatalf("state %s: %s", info.State, info.Error)
	}
	mustCall(t, r, "secure__echo", `{"message":"authorized"}`, "Echo: authorized")
	fi, err := os.Stat(store.path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %o, want 600", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(store.path); !strings.Contains(string(b), `"access_token": "at-1"`) {
		t.Errorf("token file lacks the token:\n%s", b)
	}
	time.Sleep(2500 * time.Millisecond) // at-1 is now within oauth2's 10 s expiry margin
	mustCall(t, r, "secure__echo", `{"message":"refreshed"}`, "Echo: refreshed")
	if as.Refresh.Load() == 0 {
		t.Error("the expired token was not refreshed")
	}
	if _, ok := seen.Load("at-2"); !ok {
		t.Error("the refreshed token was not used")
	}
	if b, _ := os.ReadFile(store.path); !strings.Contains(string(b), `"access_token": "at-2"`) {
		t.Errorf("the refreshed token was not stored:\n%s", b)
	}
	r.Close()

	// A registry that cannot log in uses the stored token.
	r2 := startRegistry(t, []config.Server{srv}, Options{Tokens: store, Logf: logs.logf})
	mustCall(t, r2, "secure__echo", `{"message":"stored"}`, "Echo: stored")
	// A redirect to another host never carries the token.
	redirect.Store(true)
	res := call(t, r2, "secure__echo", `{"message":"elsewhere"}`)
	if len(other.requests()) == 0 {
		t.Fatalf("the redirect was not followed: %+v", res)
	}
	for _, req := range other.requests() {
		if strings.Contains(req, "Bearer") {
			t.Errorf("the token reached another host: %q", req)
		}
	}
	if as.SawToken.Load() {
		t.Error("an access token was sent to the authorization server")
	}
	logs.mu.Lock()
	for _, l := range logs.lines {
		if strings.Contains(l, "at-") || strings.Contains(l, "rt-") {
			t.Errorf("a token was logged: %q", l)
		}
	}
	logs.mu.Unlock()

	// Without a stored token and without a browser: a clear error.
	empty := OpenTokenStore(filepath.Join(t.TempDir(), "none.json"))
	r3 := startRegistry(t, []config.Server{srv}, Options{Tokens: empty})
	if info := serverInfo(t, r3, "secure"); info.State != Failed || !strings.Contains(info.Error, "agentls mcp login secure") {
		t.Errorf("no token: %s %q", info.State, info.Error)
	}
}
