package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
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
// client's redirect_uri, and a token endpoint that checks the verifier,
// the client and the redirect_uri the code was issued to, and refreshes.
// Access tokens live 12 s (oauth2 refreshes 10 s early). With
// AcceptClientMetadataDocuments it also takes an https client_id and
// validates the client against the document it fetches from there.
type AuthServer struct {
	Srv        *httptest.Server
	Issued     atomic.Int32 // access tokens issued
	Refresh    atomic.Int32 // refresh grants
	SawToken   atomic.Bool  // a request to the authorization server carried a Bearer access token
	Authorized atomic.Int32 // requests to the authorization endpoint
	Registered atomic.Int32 // dynamic client registrations

	mu        sync.Mutex
	codes     map[string]grant // code -> what it was issued for
	authzURL  string           // the metadata's authorization_endpoint ("": this server's /authorize)
	valid     sync.Map         // access token -> true
	cimd      *http.Client     // non-nil: client ID metadata documents are fetched with it
	clientIDs []string         // the client_id of each authorization request, in order
}

// grant is what an authorization code was issued for.
type grant struct{ challenge, clientID, redirectURI string }

// NewAuthServer starts an AuthServer, closed at the test's end.
func NewAuthServer(t testing.TB) *AuthServer {
	a := &AuthServer{codes: map[string]grant{}}
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
		authz, cimd := a.authzURL, a.cimd != nil
		a.mu.Unlock()
		if authz == "" {
			authz = a.Srv.URL + "/authorize"
		}
		meta := map[string]any{
			"issuer": a.Srv.URL, "authorization_endpoint": authz, "token_endpoint": a.Srv.URL + "/token",
			"registration_endpoint": a.Srv.URL + "/register", "code_challenge_methods_supported": []string{"S256"},
			"response_types_supported": []string{"code"}, "token_endpoint_auth_methods_supported": []string{"none"},
		}
		if cimd {
			meta["client_id_metadata_document_supported"] = true
		}
		json.NewEncoder(w).Encode(meta)
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		m["client_id"] = "client-1"
		a.Registered.Add(1)
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
		clientID, redirect := q.Get("client_id"), q.Get("redirect_uri")
		a.mu.Lock()
		a.clientIDs = append(a.clientIDs, clientID)
		cimd := a.cimd
		a.mu.Unlock()
		if strings.HasPrefix(clientID, "https://") || strings.HasPrefix(clientID, "http://") {
			if cimd == nil {
				http.Error(w, `{"error":"invalid_client","error_description":"this server takes no URL client_id"}`, http.StatusBadRequest)
				return
			}
			// An invalid client is never redirected to (RFC 6749 4.1.2.1).
			if err := checkClientDocument(r.Context(), cimd, clientID, redirect); err != nil {
				http.Error(w, fmt.Sprintf(`{"error":"invalid_client","error_description":%q}`, err.Error()), http.StatusBadRequest)
				return
			}
		}
		code := fmt.Sprintf("code-%d", time.Now().UnixNano())
		a.mu.Lock()
		a.codes[code] = grant{challenge: q.Get("code_challenge"), clientID: clientID, redirectURI: redirect}
		a.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			a.mu.Lock()
			g, ok := a.codes[r.PostForm.Get("code")]
			delete(a.codes, r.PostForm.Get("code"))
			a.mu.Unlock()
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge ||
				r.PostForm.Get("redirect_uri") != g.redirectURI || requestClientID(r) != g.clientID {
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

// AcceptClientMetadataDocuments makes the metadata say
// client_id_metadata_document_supported, and an https client_id is then
// fetched with fetch (which must trust the document's host) and checked
// as draft-ietf-oauth-client-id-metadata-document says: a JSON object
// whose client_id is the URL, no shared secret, and the request's
// redirect_uri among its redirect_uris (a loopback one on any port, RFC
// 8252 7.3).
func (a *AuthServer) AcceptClientMetadataDocuments(fetch *http.Client) {
	a.mu.Lock()
	a.cimd = fetch
	a.mu.Unlock()
}

// ClientIDs are the client_id of every authorization request so far.
func (a *AuthServer) ClientIDs() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.clientIDs...)
}

// checkClientDocument fetches the client ID metadata document at id and
// checks the client and the redirect_uri against it.
func checkClientDocument(ctx context.Context, fetch *http.Client, id, redirect string) error {
	if !strings.HasPrefix(id, "https://") {
		return fmt.Errorf("client_id %q is not an https URL", id)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := fetch.Do(req)
	if err != nil {
		return fmt.Errorf("fetching the client metadata document: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the client metadata document answered HTTP %d", resp.StatusCode)
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "application/json" {
		return fmt.Errorf("the client metadata document is %q, not application/json", ct)
	}
	var doc struct {
		ClientID     string   `json:"client_id"`
		ClientSecret string   `json:"client_secret"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 5<<10)).Decode(&doc); err != nil {
		return fmt.Errorf("the client metadata document is not a JSON object: %v", err)
	}
	switch {
	case doc.ClientID != id:
		return fmt.Errorf("the client metadata document's client_id %q is not its URL %q", doc.ClientID, id)
	case doc.ClientSecret != "" || strings.HasPrefix(doc.AuthMethod, "client_secret"):
		return fmt.Errorf("the client metadata document uses a shared secret")
	}
	for _, u := range doc.RedirectURIs {
		if redirectMatches(u, redirect) {
			return nil
		}
	}
	return fmt.Errorf("redirect_uri %q is not among the document's redirect_uris %q", redirect, doc.RedirectURIs)
}

// redirectMatches compares a registered redirect URI with a requested one:
// exactly, except that a loopback IP literal's port may differ (RFC 8252 7.3).
func redirectMatches(registered, requested string) bool {
	if registered == requested {
		return true
	}
	a, err1 := url.Parse(registered)
	b, err2 := url.Parse(requested)
	if err1 != nil || err2 != nil || a.Scheme != "http" || b.Scheme != "http" {
		return false
	}
	ip := net.ParseIP(a.Hostname())
	return ip != nil && ip.IsLoopback() && a.Hostname() == b.Hostname() &&
		a.Path == b.Path && a.RawQuery == b.RawQuery
}

// requestClientID is the client a token request names, in its form or
// its Basic credentials.
func requestClientID(r *http.Request) string {
	if id := r.PostForm.Get("client_id"); id != "" {
		return id
	}
	if u, _, ok := r.BasicAuth(); ok {
		id, _ := url.QueryUnescape(u)
		return id
	}
	return ""
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
