package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
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

// authServer is a small OAuth 2.1 authorization server: metadata, dynamic
// client registration, an authorization endpoint that approves at once
// (PKCE required) and a token endpoint that checks the verifier and
// refreshes. Access tokens live 12 s (oauth2 refreshes 10 s early).
type authServer struct {
	srv      *httptest.Server
	mu       sync.Mutex
	codes    map[string]string // code -> code_challenge
	issued   atomic.Int32
	refresh  atomic.Int32
	valid    sync.Map    // access token -> true
	sawToken atomic.Bool // a request to the authorization server carried a Bearer access token
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{codes: map[string]string{}}
	mux := http.NewServeMux()
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Authorization"), "Bearer at-") {
			a.sawToken.Store(true)
		}
		w.Header().Set("Content-Type", "application/json")
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(a.srv.Close)
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": a.srv.URL, "authorization_endpoint": a.srv.URL + "/authorize", "token_endpoint": a.srv.URL + "/token",
			"registration_endpoint": a.srv.URL + "/register", "code_challenge_methods_supported": []string{"S256"},
			"response_types_supported": []string{"code"}, "token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		m["client_id"] = "client-1"
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(m)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("resource") == "" {
			http.Error(w, "PKCE and resource required", http.StatusBadRequest)
			return
		}
		code := fmt.Sprintf("code-%d", time.Now().UnixNano())
		a.mu.Lock()
		a.codes[code] = q.Get("code_challenge")
		a.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			a.mu.Lock()
			challenge, ok := a.codes[r.PostForm.Get("code")]
			delete(a.codes, r.PostForm.Get("code"))
			a.mu.Unlock()
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
		case "refresh_token":
			if !strings.HasPrefix(r.PostForm.Get("refresh_token"), "rt-") {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			a.refresh.Add(1)
		default:
			http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
			return
		}
		n := a.issued.Add(1)
		at := fmt.Sprintf("at-%d", n)
		a.valid.Store(at, true)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 12,
			"refresh_token": fmt.Sprintf("rt-%d", n)})
	})
	return a
}

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
	as := newAuthServer(t)
	other := newRecorder(t, "Authorization", proxy)
	var redirect atomic.Bool
	var seen sync.Map
	var rs *httptest.Server
	rs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource" || r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"resource": rs.URL + "/mcp", "authorization_servers": []string{as.srv.URL}})
			return
		}
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if _, ok := as.valid.Load(tok); !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+rs.URL+`/.well-known/oauth-protected-resource"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		seen.Store(tok, true)
		if redirect.Load() {
			http.Redirect(w, r, other.srv.URL+r.URL.Path, http.StatusTemporaryRedirect)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(rs.Close) // after the registries' cleanups: they hold streams open

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
	if as.refresh.Load() == 0 {
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
	if as.sawToken.Load() {
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
