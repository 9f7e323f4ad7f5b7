package mcpserve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Listener is a Server's Streamable HTTP endpoint: 127.0.0.1 on a port
// the kernel picked, path /mcp, every request carrying the bearer token
// that only the user can read (TokenFile, mode 0600); and the same on a
// unix socket (Socket) when asked, for `agentls mcp serve` (socket.go).
type Listener struct {
	// URL is the endpoint, http://127.0.0.1:PORT/mcp.
	URL string
	// TokenFile holds the token, one line, mode 0600; removed by Close.
	TokenFile string
	// Socket is the unix socket served too (mode 0600), "" if none;
	// removed by Close.
	Socket string

	token     string
	host      string // 127.0.0.1:PORT
	port      string
	srv       *http.Server
	sdk       *sdk.Server
	stateful  http.Handler
	stateless http.Handler
	stop      func()
	done      sync.WaitGroup
	closeOnce sync.Once
}

// ListenHTTP starts serving s on 127.0.0.1 at a random port, with a new
// token written to tokenFile (its folder made 0700; the file 0600, never
// readable by another user), and on a unix socket at socket unless that
// is "" (its folder made 0700 too). It serves until Close or ctx ends.
func (s *Server) ListenHTTP(ctx context.Context, tokenFile, socket string) (*Listener, error) {
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	if err := writeSecret(tokenFile, token+"\n"); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Remove(tokenFile)
		return nil, fmt.Errorf("mcpserve: listen on 127.0.0.1: %w", err)
	}
	listeners := []net.Listener{ln}
	if socket != "" {
		if err := privateFolder(filepath.Dir(socket)); err != nil {
			ln.Close()
			os.Remove(tokenFile)
			return nil, err
		}
		uln, err := listenUnix(socket)
		if err != nil {
			ln.Close()
			os.Remove(tokenFile)
			return nil, err
		}
		listeners = append(listeners, uln)
	}
	host := ln.Addr().String()
	_, port, _ := net.SplitHostPort(host)
	l := &Listener{URL: "http://" + host + "/mcp", TokenFile: tokenFile, Socket: socket, token: token, host: host, port: port}
	l.sdk = s.sdkServer("HTTP")
	get := func(*http.Request) *sdk.Server { return l.sdk }
	// The stateful handler serves initialize and its session (2025-11-25);
	// requests of the sessionless 2026-07-28 revision go to the stateless
	// one. Both check a loopback Host themselves too.
	l.stateful = sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute})
	l.stateless = sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})
	l.stop = s.serveResources(ctx, l.sdk, "HTTP")
	l.srv = &http.Server{Handler: l, ReadHeaderTimeout: 10 * time.Second}
	for _, ln := range listeners {
		l.done.Add(1)
		go func() {
			defer l.done.Done()
			if err := l.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.opts.Logf("agentls mcp serve: %v", err)
			}
		}()
	}
	context.AfterFunc(ctx, func() { l.Close() })
	return l, nil
}

// Token is the bearer token (for the process that started the listener
// to hand to a client it trusts; never logged).
func (l *Listener) Token() string { return l.token }

// Close stops serving, ends every MCP session and removes the token file.
func (l *Listener) Close() error {
	var err error
	l.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		l.stop()
		for ss := range l.sdk.Sessions() {
			ss.Close()
		}
		err = l.srv.Shutdown(ctx)
		if err != nil {
			err = l.srv.Close()
		}
		l.done.Wait()
		os.Remove(l.TokenFile)
		if l.Socket != "" {
			os.Remove(l.Socket)
		}
	})
	return err
}

// ServeHTTP checks the request before the SDK sees it: a Host other than
// this loopback address (DNS rebinding: a web page on evil.example that
// resolves to 127.0.0.1) or an Origin other than loopback's is refused
// with 403, a missing or wrong token with 401. No CORS header is ever set,
// so no browser page can read an answer.
func (l *Listener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !l.loopbackHost(r.Host) {
		http.Error(w, "agentls: refused: the Host header must be this loopback address ("+l.host+")", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !l.loopbackOrigin(o) {
		http.Error(w, "agentls: refused: requests from a web page's origin are not served", http.StatusForbidden)
		return
	}
	if !l.authorized(r.Header.Get("Authorization")) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="agentls"`)
		http.Error(w, "agentls: the request needs the bearer token of this agentls session (Authorization: Bearer <the token file's content>)", http.StatusUnauthorized)
		return
	}
	if r.URL.Path != "/mcp" {
		http.NotFound(w, r)
		return
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v >= "2026-07-28" && r.Header.Get("Mcp-Session-Id") == "" {
		l.stateless.ServeHTTP(w, r)
		return
	}
	l.stateful.ServeHTTP(w, r)
}

// authorized compares the bearer token in constant time.
func (l *Listener) authorized(h string) bool {
	got, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(l.token)) == 1
}

func (l *Listener) loopbackHost(h string) bool {
	return h == l.host || h == "localhost:"+l.port || h == "[::1]:"+l.port
}

func (l *Listener) loopbackOrigin(o string) bool {
	u, err := url.Parse(o)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && l.loopbackHost(u.Host)
}

func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("mcpserve: make a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// privateFolder makes dir, mode 0700, and makes an existing one of the
// user's 0700 too.
func privateFolder(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("mcpserve: make %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("mcpserve: %s: %w", dir, err)
	}
	return nil
}

// writeSecret writes text to path, mode 0600, in a folder made 0700,
// through a new file renamed into place (never an existing file someone
// else could have opened or linked).
func writeSecret(path, text string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("mcpserve: make %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("mcpserve: write %s: %w", path, err)
	}
	tmp := f.Name()
	if err := f.Chmod(0o600); err == nil {
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp, path)
		}
		if err == nil {
			return nil
		}
	} else {
		f.Close()
	}
	os.Remove(tmp)
	return fmt.Errorf("mcpserve: write %s: %w", path, err)
}
