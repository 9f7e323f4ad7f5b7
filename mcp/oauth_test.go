package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
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

// protectedEverything is the real server-everything behind a resource
// server that takes as's tokens.
func protectedEverything(t *testing.T, as *testenv.AuthServer) *httptest.Server {
	everything := testenv.EverythingHTTP(t, "streamableHttp")
	target, _ := url.Parse(everything.Base)
	proxy := httputil.NewSingleHostReverseProxy(target)
	return as.Protect(t, func(tok string, w http.ResponseWriter, r *http.Request) { proxy.ServeHTTP(w, r) })
}

// followBrowser stands in for the user's browser: it opens the
// authorization URL and follows the redirects back to agentls.
func followBrowser(ctx context.Context, server, authURL string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	return err
}

// hostDocument serves body over https on loopback at path and returns its
// URL and a client that trusts the host.
func hostDocument(t *testing.T, path string, body func(u string) []byte) (string, *http.Client) {
	var u string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body(u))
	}))
	t.Cleanup(srv.Close)
	u = srv.URL + path
	return u, srv.Client()
}

// TestOAuthClientMetadataDocument: with a Client ID Metadata Document
// configured, agentls presents its URL as client_id to an authorization
// server that says it supports them (which fetches the document agentls
// prints for hosting and checks the redirect_uri against it), registers
// dynamically only with one that does not, and a pre-registered client
// id still comes first (MCP's order). The document's URL is the stored
// client, so a refresh names it too.
func TestOAuthClientMetadataDocument(t *testing.T) {
	docURL, trusting := hostDocument(t, "/agentls/client.json", func(u string) []byte {
		b, err := ClientMetadataDocument(u)
		if err != nil {
			t.Errorf("ClientMetadataDocument(%q): %v", u, err)
		}
		return b
	})
	connect := func(t *testing.T, as *testenv.AuthServer, s config.Server) (*TokenStore, string) {
		rs := protectedEverything(t, as)
		s.Name, s.Origin, s.URL = "secure", config.User, rs.URL+"/mcp"
		s.ConnectTimeout, s.ListTimeout, s.CallTimeout = 30*time.Second, 30*time.Second, 30*time.Second
		store := OpenTokenStore(filepath.Join(t.TempDir(), "oauth-tokens.json"))
		r := startRegistry(t, []config.Server{s}, Options{Tokens: store, Browser: followBrowser})
		if info := serverInfo(t, r, "secure"); info.State != Connected {
			t.Fatalf("state %s: %s", info.State, info.Error)
		}
		mustCall(t, r, "secure__echo", `{"message":"authorized"}`, "Echo: authorized")
		return store, s.URL
	}
	onlyClient := func(t *testing.T, as *testenv.AuthServer, want string) {
		t.Helper()
		ids := as.ClientIDs()
		if len(ids) == 0 {
			t.Fatal("no authorization request reached the authorization server")
		}
		for _, id := range ids {
			if id != want {
				t.Errorf("authorization requests named client %q; want %q (all: %q)", id, want, ids)
			}
		}
	}

	t.Run("the document where the server supports one", func(t *testing.T) {
		as := testenv.NewAuthServer(t)
		as.AcceptClientMetadataDocuments(trusting)
		store, u := connect(t, as, config.Server{OAuthClientMetadataURL: docURL})
		onlyClient(t, as, docURL)
		if n := as.Registered.Load(); n != 0 {
			t.Errorf("%d dynamic registrations; want none where the document is accepted", n)
		}
		if a, _ := store.get(u); a.ClientID != docURL {
			t.Errorf("stored client %q; want the document URL", a.ClientID)
		}
	})
	t.Run("dynamic registration where the server takes no document", func(t *testing.T) {
		as := testenv.NewAuthServer(t)
		connect(t, as, config.Server{OAuthClientMetadataURL: docURL})
		onlyClient(t, as, "client-1")
		if n := as.Registered.Load(); n != 1 {
			t.Errorf("%d dynamic registrations; want 1", n)
		}
	})
	t.Run("a pre-registered client comes first", func(t *testing.T) {
		as := testenv.NewAuthServer(t)
		as.AcceptClientMetadataDocuments(trusting)
		connect(t, as, config.Server{OAuthClientID: "pre-1", OAuthClientMetadataURL: docURL})
		onlyClient(t, as, "pre-1")
		if n := as.Registered.Load(); n != 0 {
			t.Errorf("%d dynamic registrations; want none with a pre-registered client", n)
		}
	})
}

// TestClientMetadataDocument: the document agentls prints for hosting
// names its URL as client_id, lists only agentls's loopback redirect (a
// web redirect listed there would let that host receive codes issued to
// agentls's client id), asks for no secret, and refuses a URL that cannot
// be a client_id.
func TestClientMetadataDocument(t *testing.T) {
	const u = "https://example.com/agentls/client.json"
	b, err := ClientMetadataDocument(u)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ClientID     string   `json:"client_id"`
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
		GrantTypes   []string `json:"grant_types"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		AppType      string   `json:"application_type"`
		Secret       *string  `json:"client_secret"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	if doc.ClientID != u || doc.ClientName != "agentls" || doc.AuthMethod != "none" || doc.Secret != nil || doc.AppType != "native" {
		t.Errorf("document:\n%s", b)
	}
	if len(doc.RedirectURIs) != 1 || doc.RedirectURIs[0] != "http://127.0.0.1/callback" {
		t.Errorf("redirect_uris %q; want only agentls's loopback listener", doc.RedirectURIs)
	}
	if !slices.Contains(doc.GrantTypes, "authorization_code") || !slices.Contains(doc.GrantTypes, "refresh_token") {
		t.Errorf("grant_types %q", doc.GrantTypes)
	}
	if _, err := ClientMetadataDocument("http://example.com/client.json"); err == nil || !strings.Contains(err.Error(), "https") {
		t.Errorf("an http URL: %v; want refused", err)
	}
}

// TestOAuthLoopbackIgnoresForeignRedirects: a redirect to the loopback
// listener that does not carry the state of the login in progress (a web
// page or another local program guessing the port, with its own code or
// an error) is refused and does not end the login: the real redirect
// still completes it, and the forged code is never exchanged.
func TestOAuthLoopbackIgnoresForeignRedirects(t *testing.T) {
	as := testenv.NewAuthServer(t)
	rs := protectedEverything(t, as)
	var forged []int
	browser := func(ctx context.Context, server, authURL string) error {
		au, err := url.Parse(authURL)
		if err != nil {
			return err
		}
		cb := au.Query().Get("redirect_uri")
		for _, q := range []string{"code=forged&state=guess", "error=access_denied&state=guess", "code=forged"} {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cb+"?"+q, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return err
			}
			resp.Body.Close()
			forged = append(forged, resp.StatusCode)
		}
		return followBrowser(ctx, server, authURL)
	}
	srv := remoteServer("secure", rs.URL+"/mcp", nil)
	srv.ConnectTimeout = 30 * time.Second
	store := OpenTokenStore(filepath.Join(t.TempDir(), "oauth-tokens.json"))
	r := startRegistry(t, []config.Server{srv}, Options{Tokens: store, Browser: browser})
	if info := serverInfo(t, r, "secure"); info.State != Connected {
		t.Fatalf("a forged redirect ended the login: %s: %s", info.State, info.Error)
	}
	mustCall(t, r, "secure__echo", `{"message":"authorized"}`, "Echo: authorized")
	for i, code := range forged {
		if code != http.StatusBadRequest {
			t.Errorf("forged redirect %d answered %d; want 400", i, code)
		}
	}
	if n := as.Issued.Load(); n != 1 {
		t.Errorf("%d tokens issued; want 1", n)
	}
}
