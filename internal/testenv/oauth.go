package testenv

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// AuthServer is a small OAuth 2.1 authorization server on loopback:
// metadata, dynamic client registration, an authorization endpoint that
// approves at once (PKCE and resource required) and redirects to the
// client's redirect_uri, and a token endpoint that checks the verifier and
// refreshes. Access tokens live 12 s (oauth2 refreshes 10 s early).
type AuthServer struct {
	Srv        *httptest.Server
	Issued     atomic.Int32 // access tokens issued
	Refresh    atomic.Int32 // refresh grants
	SawToken   atomic.Bool  // a request to the authorization server carried a Bearer access token
	Authorized atomic.Int32 // requests to the authorization endpoint

	mu       sync.Mutex
	codes    map[string]string // code -> code_challenge
	authzURL string            // the metadata's authorization_endpoint ("": this server's /authorize)
	valid    sync.Map          // access token -> true
}

// NewAuthServer starts an AuthServer, closed at the test's end.
func NewAuthServer(t testing.TB) *AuthServer {
	a := &AuthServer{codes: map[string]string{}}
	mux := http.NewServeMux()
	a.Srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Authorization"), "Bearer at-") {
			a.SawToken.Store(true)
		}
		w.Header().Set("Content-Type", "application/json")
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(a.Srv.Close)
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		authz := a.authzURL
		a.mu.Unlock()
		if authz == "" {
			authz = a.Srv.URL + "/authorize"
		}
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": a.Srv.URL, "authorization_endpoint": authz, "token_endpoint": a.Srv.URL + "/token",
			"registration_endpoint": a.Srv.URL + "/register", "code_challenge_methods_supported": []string{"S256"},
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
		a.Authorized.Add(1)
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
			a.Refresh.Add(1)
		default:
			http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
			return
		}
		n := a.Issued.Add(1)
		at := fmt.Sprintf("at-%d", n)
		a.valid.Store(at, true)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 12,
			"refresh_token": fmt.Sprintf("rt-%d", n)})
	})
	return a
}

// SetAuthorizationEndpoint makes the metadata name u as the authorization
// endpoint (a hostile server's metadata, for the tests that attack it).
func (a *AuthServer) SetAuthorizationEndpoint(u string) {
	a.mu.Lock()
	a.authzURL = u
	a.mu.Unlock()
}

// Valid reports whether tok is an access token this server issued.
func (a *AuthServer) Valid(tok string) bool {
	_, ok := a.valid.Load(tok)
	return ok
}

// Protect is an MCP endpoint that needs a's tokens: it serves the
// protected-resource metadata naming a, answers 401 with the metadata's
// URL to a request without a valid Bearer token, and hands the others
// (and their token) to next. The MCP URL is the result's URL + "/mcp".
func (a *AuthServer) Protect(t testing.TB, next func(tok string, w http.ResponseWriter, r *http.Request)) *httptest.Server {
	var rs *httptest.Server
	rs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource" || r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"resource": rs.URL + "/mcp", "authorization_servers": []string{a.Srv.URL}})
			return
		}
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !a.Valid(tok) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+rs.URL+`/.well-known/oauth-protected-resource"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next(tok, w, r)
	}))
	t.Cleanup(rs.Close) // after the registries' cleanups: they hold streams open
	return rs
}
