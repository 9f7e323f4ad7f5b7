package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	"github.com/agentls/agentls/config"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// OAuthBrowser shows the user an authorization URL (prints it, or asks the
// editor to open it). The authorization server then redirects the browser
// to agentls's loopback listener, which completes the flow.
type OAuthBrowser func(ctx context.Context, server, authURL string) error

// TokenStore keeps OAuth tokens per server URL in one JSON file, mode 0600
// in a 0700 folder, written by atomic rename. Tokens never appear in logs,
// events, transcripts or the server list.
type TokenStore struct {
	path string
	mu   sync.Mutex
}

// OpenTokenStore uses the file at path (created on first save).
func OpenTokenStore(path string) *TokenStore { return &TokenStore{path: path} }

// storedAuth is what one server's authorization needs to be reused and refreshed.
type storedAuth struct {
	ClientID     string        `json:"clientId"`
	ClientSecret string        `json:"clientSecret,omitempty"`
	AuthURL      string        `json:"authUrl"`
	TokenURL     string        `json:"tokenUrl"`
	AuthStyle    int           `json:"authStyle"`
	Token        *oauth2.Token `json:"token"`
}

func (s *TokenStore) load() (map[string]storedAuth, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]storedAuth{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string]storedAuth{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	return m, nil
}

func (s *TokenStore) get(serverURL string) (storedAuth, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return storedAuth{}, false
	}
	a, ok := m[serverURL]
	return a, ok && a.Token != nil
}

func (s *TokenStore) update(f func(map[string]storedAuth)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return err
	}
	f(m)
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".oauth-tokens-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}

// Forget deletes the stored authorization of a server URL; it reports
// whether there was one.
func (s *TokenStore) Forget(serverURL string) (bool, error) {
	found := false
	err := s.update(func(m map[string]storedAuth) {
		_, found = m[serverURL]
		delete(m, serverURL)
	})
	return found, err
}

// Has reports whether a token is stored for the server URL.
func (s *TokenStore) Has(serverURL string) bool {
	_, ok := s.get(serverURL)
	return ok
}

// savingSource stores every new token (a refresh, a new authorization).
type savingSource struct {
	src   oauth2.TokenSource
	store *TokenStore
	url   string
	cfg   *oauth2.Config
	mu    sync.Mutex
	last  string
	logf  func(string, ...any)
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	t, err := s.src.Token()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.AccessToken != s.last {
		s.last = t.AccessToken
		a := storedAuth{ClientID: s.cfg.ClientID, ClientSecret: s.cfg.ClientSecret, AuthURL: s.cfg.Endpoint.AuthURL,
			TokenURL: s.cfg.Endpoint.TokenURL, AuthStyle: int(s.cfg.Endpoint.AuthStyle), Token: t}
		if err := s.store.update(func(m map[string]storedAuth) { m[s.url] = a }); err != nil {
			s.logf("mcp: saving the OAuth token for %s: %v", s.url, err)
		}
	}
	return t, nil
}

// callbackPath is where the authorization server sends the browser back:
// agentls's listener on 127.0.0.1, on a port chosen per login (a
// loopback redirect matches on any port, RFC 8252 7.3).
const callbackPath = "/callback"

// clientMetadata is how agentls describes itself to an authorization
// server, by dynamic registration or in its Client ID Metadata Document:
// a public native client whose only redirect is the loopback listener.
func clientMetadata(redirect string) *oauthex.ClientRegistrationMetadata {
	return &oauthex.ClientRegistrationMetadata{
		ClientName: "agentls", RedirectURIs: []string{redirect}, ApplicationType: "native",
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		TokenEndpointAuthMethod: "none",
	}
}

// ClientMetadataDocument is the OAuth Client ID Metadata Document to host
// at clientID (served as application/json) for oauth_client_metadata_url
// = clientID: the URL as client_id, agentls's metadata, and the loopback
// redirect without a port, which the authorization server matches on
// any port.
func ClientMetadataDocument(clientID string) ([]byte, error) {
	if err := config.CheckClientMetadataURL(clientID); err != nil {
		return nil, err
	}
	doc := struct {
		ClientID string `json:"client_id"`
		*oauthex.ClientRegistrationMetadata
	}{clientID, clientMetadata("http://127.0.0.1" + callbackPath)}
	b, err := json.MarshalIndent(doc, "", "  ")
	return append(b, '\n'), err
}

// oauthFor makes the OAuth handler of one remote connection: a stored
// token is used (and refreshed) as is; a 401 with none, or a step-up,
// runs the authorization code flow with PKCE (the SDK's handler:
// protected-resource and authorization-server discovery, the resource
// parameter, scopes from the challenge or the metadata) when a browser
// is at hand, and otherwise fails saying to run `agentls mcp login
// NAME`. The client is, in MCP's order, a pre-registered client_id, else
// the Client ID Metadata Document URL where the authorization server
// supports them, else dynamic client registration. The returned func
// releases the loopback listener.
func oauthFor(dc dialConfig) (auth.OAuthHandler, func(), error) {
	s := dc.server
	store := dc.tokens
	hc := &http.Client{} // not the server's client: token requests carry their own Authorization
	tctx := context.WithValue(context.Background(), oauth2.HTTPClient, hc)
	cfg := &auth.AuthorizationCodeHandlerConfig{
		Client:              hc,
		RequestRefreshToken: true,
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			return &savingSource{src: c.TokenSource(tctx, t), store: store, url: s.URL, cfg: c, logf: dc.logf}, nil
		},
	}
	if a, ok := store.get(s.URL); ok {
		c := &oauth2.Config{ClientID: a.ClientID, ClientSecret: a.ClientSecret,
			Endpoint: oauth2.Endpoint{AuthURL: a.AuthURL, TokenURL: a.TokenURL, AuthStyle: oauth2.AuthStyle(a.AuthStyle)}}
		cfg.InitialTokenSource = &savingSource{src: c.TokenSource(tctx, a.Token), store: store, url: s.URL, cfg: c, last: a.Token.AccessToken, logf: dc.logf}
	}
	release := func() {}
	redirect := "http://127.0.0.1" + callbackPath
	var lb *loopback
	if dc.browser != nil {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, fmt.Errorf("oauth: loopback listener: %w", err)
		}
		redirect = fmt.Sprintf("http://127.0.0.1:%d%s", ln.Addr().(*net.TCPAddr).Port, callbackPath)
		lb = startLoopback(ln)
		release = lb.close
	}
	cfg.RedirectURL = redirect
	if s.OAuthClientID != "" {
		creds := &oauthex.ClientCredentials{ClientID: s.OAuthClientID}
		if s.OAuthClientSecretEnv != "" {
			if v, ok := os.LookupEnv(s.OAuthClientSecretEnv); ok && v != "" {
				creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: v}
			}
		}
		// Alone: the SDK would try a metadata document before it.
		cfg.PreregisteredClient = creds
	} else {
		if s.OAuthClientMetadataURL != "" {
			cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: s.OAuthClientMetadataURL}
		}
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: clientMetadata(redirect)}
	}
	cfg.AuthorizationCodeFetcher = func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		if lb == nil {
			return nil, needsLogin(s.Name)
		}
		au, err := url.Parse(args.URL)
		if err != nil {
			return nil, fmt.Errorf("oauth: the authorization URL: %w", err)
		}
		return lb.code(ctx, au.Query().Get("state"), func() error { return dc.browser(ctx, s.Name, args.URL) })
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("oauth: %w", err)
	}
	if dc.browser == nil {
		return &noBrowser{AuthorizationCodeHandler: h, name: s.Name}, release, nil
	}
	return h, release, nil
}

func needsLogin(name string) error {
	return fmt.Errorf("the server needs an OAuth login (run  agentls mcp login %s  or, in an editor, the command agentls.mcp.login)", name)
}

// noBrowser refuses to start an authorization flow nobody can complete
// (no discovery, no client registration); stored tokens still work.
type noBrowser struct {
	*auth.AuthorizationCodeHandler
	name string
}

func (n *noBrowser) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	resp.Body.Close()
	return needsLogin(n.name)
}

// loopback receives the authorization server's redirect on 127.0.0.1.
// Only a redirect carrying the state of the login in progress is taken:
// any web page or local program can reach the port, and one that got in
// first with its own code or error would end the login (the SDK then
// fails on the state) or, with an error, abort it.
type loopback struct {
	srv     *http.Server
	done    chan struct{}
	results chan callbackResult

	mu    sync.Mutex
	state string // of the login in progress; "" = none
}

type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

func startLoopback(ln net.Listener) *loopback {
	lb := &loopback{done: make(chan struct{}), results: make(chan callbackResult, 1)}
	lb.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		lb.mu.Lock()
		state := lb.state
		lb.mu.Unlock()
		if state == "" || q.Get("state") != state {
			http.Error(w, "agentls: this redirect does not belong to the login in progress.", http.StatusBadRequest)
			return
		}
		var cr callbackResult
		if e := q.Get("error"); e != "" {
			fmt.Fprintln(w, "agentls: authorization failed; you can close this page.")
			cr.err = fmt.Errorf("authorization failed: %s %s", e, q.Get("error_description"))
		} else {
			fmt.Fprintln(w, "agentls: authorized; you can close this page.")
			cr.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		}
		select {
		case lb.results <- cr:
		default:
		}
	})}
	go func() { defer close(lb.done); lb.srv.Serve(ln) }()
	return lb
}

func (lb *loopback) close() {
	lb.srv.Shutdown(context.Background())
	<-lb.done
}

// code shows the authorization URL and waits for the redirect that
// carries state.
func (lb *loopback) code(ctx context.Context, state string, show func() error) (*auth.AuthorizationResult, error) {
	if state == "" {
		return nil, errors.New("oauth: the authorization URL carries no state")
	}
	lb.mu.Lock()
	lb.state = state
	lb.mu.Unlock()
	defer func() {
		lb.mu.Lock()
		lb.state = ""
		lb.mu.Unlock()
	}()
	select { // a stale redirect from an earlier flow
	case <-lb.results:
	default:
	}
	if err := show(); err != nil {
		return nil, err
	}
	select {
	case r := <-lb.results:
		return r.res, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("authorization not completed: %w", ctx.Err())
	}
}
