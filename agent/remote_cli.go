package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// The command line's remote-server commands (agentls mcp login, logout and
// the hidden probe) drive a registry of their own through these, so the
// command line never reaches into mcp or trust itself.

// Browser opens an authorization URL for the named server (or prints it).
type Browser = func(ctx context.Context, server, authURL string) error

// TokenStorePath is where OAuth tokens of remote servers are kept (0600).
func TokenStorePath(stateDir string) string { return filepath.Join(stateDir, "oauth-tokens.json") }

// LoginOutcome is how `agentls mcp login` ended.
type LoginOutcome struct {
	State       wire.ServerState // the server's state after connecting
	Error       string           // why it is not connected
	TokenStored bool             // the server asked for authorization and a token is stored
}

// LoginRemote connects the remote server srv through a registry of its own
// so that its OAuth flow runs (browser gets the authorization URL), with the
// launch gate of the trust store in stateDir: a repository's server that is
// not approved stays NeedsApproval/ApprovalStale and nothing is contacted.
func LoginRemote(ctx context.Context, srv config.Server, stateDir string, browser Browser, logf func(string, ...any)) (LoginOutcome, error) {
	store := trust.OpenStore(filepath.Join(stateDir, "trust.json"))
	tokens := mcp.OpenTokenStore(TokenStorePath(stateDir))
	opts := RegistryOptions(&config.Config{MCP: config.MCP{LogLevel: config.DefaultMCPLogLevel}}, store)
	opts.Tokens, opts.Logf, opts.Browser = tokens, logf, browser
	r := mcp.NewRegistry([]config.Server{srv}, opts)
	defer r.Close()
	st, err := r.StartServer(ctx, srv.Name)
	if err != nil {
		return LoginOutcome{State: st}, err
	}
	if st == mcp.NeedsApproval || st == mcp.ApprovalStale {
		return LoginOutcome{State: st}, nil
	}
	r.Wait(ctx)
	info := r.Servers()[0]
	return LoginOutcome{State: info.State, Error: info.Error, TokenStored: tokens.Has(srv.URL)}, nil
}

// LogoutRemote forgets the token stored for url; found is false when there
// was none.
func LogoutRemote(stateDir, url string) (found bool, err error) {
	return mcp.OpenTokenStore(TokenStorePath(stateDir)).Forget(url)
}

// ProbeRemote connects srv through the registry exactly as a configured
// `url = ...` server is connected (transport choice, fallback, roots,
// progress, logging, OAuth with tokens kept in tokensPath), lists its tools
// and calls each with the arguments args makes from its input schema,
// writing what happens to out. ok is false when it did not connect or a
// call failed.
func ProbeRemote(ctx context.Context, srv config.Server, roots []string, tokensPath string, browser Browser,
	args func(schema json.RawMessage) json.RawMessage, out io.Writer, logf func(string, ...any)) (ok bool) {
	r := mcp.NewRegistry([]config.Server{srv}, mcp.Options{Logf: logf, LogLevel: "debug", Roots: roots,
		Tokens: mcp.OpenTokenStore(tokensPath), Browser: browser})
	defer r.Close()
	r.Start(ctx)
	wctx, cancel := context.WithTimeout(ctx, srv.ConnectTimeout+srv.ListTimeout+5*time.Second)
	r.Wait(wctx)
	cancel()
	info := r.Servers()[0]
	if info.State != mcp.Connected {
		fmt.Fprintf(out, "not connected: %s: %s\n", info.State, info.Error)
		return false
	}
	fmt.Fprintf(out, "connected over %s: %d tools\n", info.Transport, len(info.Tools))
	ok = true
	for _, t := range info.Tools {
		in := args(t.InputSchema)
		cctx := mcp.WithListener(ctx, mcp.CallListener{
			Progress: func(p mcp.Progress) { fmt.Fprintf(out, "  progress %s\n", p) },
			Log:      func(m mcp.LogMessage) { fmt.Fprintf(out, "  log %s\n", m) },
		})
		res := r.Call(cctx, t.Name, in)
		fmt.Fprintf(out, "call %s %s: error=%v\n%s\n", t.ServerTool, in, res.IsError, res.Text)
		ok = ok && !res.IsError
	}
	return ok
}
