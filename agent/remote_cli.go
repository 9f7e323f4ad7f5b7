package agent

import (
	"context"
	"encoding/json"
	"errors"
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
	opts := RegistryOptions(config.Defaults(), store)
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
	fmt.Fprintf(out, "connected over %s, MCP %s: %d tools\n", info.Transport, info.Revision, len(info.Tools))
	ok = true
	for _, t := range info.Tools {
		in := args(t.InputSchema)
		cctx := mcp.WithListener(ctx, mcp.CallListener{
			Progress: func(p mcp.Progress) { fmt.Fprintf(out, "  progress %s\n", p) },
			Log:      func(m mcp.LogMessage) { fmt.Fprintf(out, "  log %s\n", m) },
			Elicit: func(_ context.Context, e mcp.Elicitation) mcp.ElicitAnswer {
				ans := probeAnswer(e)
				fmt.Fprintf(out, "  elicitation (%s) %q: %s %v\n", e.Mode, e.Message, ans.Action, ans.Content)
				return ans
			},
		})
		res := r.Call(cctx, t.Name, in)
		fmt.Fprintf(out, "call %s %s: error=%v\n%s\n", t.ServerTool, in, res.IsError, res.Text)
		ok = ok && !res.IsError
	}
	return ok
}

// probeAnswer is the probe's answer to a server's question, with nobody to
// ask: a form whose every field has a default is accepted with the
// defaults (what the conformance suite's elicitation-sep1034-client-defaults
// checks), anything else declined. Never an interactive front's rule: there
// the defaults are sent only when the user picks them on a card.
func probeAnswer(e mcp.Elicitation) mcp.ElicitAnswer {
	decline := mcp.ElicitAnswer{Action: wire.ElicitDecline}
	if e.Mode != wire.ElicitForm {
		return decline
	}
	for _, f := range e.Fields {
		if len(f.Default) == 0 {
			return decline
		}
	}
	c, err := FormContent(e.Fields, nil)
	if err != nil {
		return decline
	}
	return mcp.ElicitAnswer{Action: wire.ElicitAccept, Content: c}
}

// LoginServer runs the OAuth authorization of the configured remote
// server name for an editor (agentls.mcp.login): the same flow as `agentls
// mcp login`, with the authorization page opened through ap (the editor's
// window/showDocument, or a message with the URL) and the redirect to a
// loopback listener; then the server is restarted to use the stored
// token. A repository's server must be approved first (nothing is
// contacted before). The flow is bounded by [agent] approval_timeout.
func (c *Core) LoginServer(ctx context.Context, name string, ap Approver) (LoginOutcome, error) {
	if c.reg == nil {
		return LoginOutcome{}, errors.New("no MCP servers are configured")
	}
	srv, ok := c.reg.Server(name)
	if !ok {
		return LoginOutcome{}, fmt.Errorf("no MCP server named %q in the config (see agent/mcp/servers)", name)
	}
	if !srv.Remote() {
		return LoginOutcome{}, fmt.Errorf("MCP server %q is not a remote server (url = ...): it needs no login", name)
	}
	opener, ok := ap.(URLOpener)
	if !ok {
		return LoginOutcome{}, errors.New("this editor cannot be sent to the authorization page: run  agentls mcp login " + name)
	}
	lctx, cancel := context.WithTimeout(ctx, c.cfg.Agent.ApprovalTimeout)
	defer cancel()
	srv.ConnectTimeout = max(srv.ConnectTimeout, c.cfg.Agent.ApprovalTimeout) // the user is in the browser
	browser := func(ctx context.Context, _ string, authURL string) error { return openWebPage(ctx, opener, authURL) }
	out, err := LoginRemote(lctx, srv, c.stateDir, browser, c.logf)
	if err != nil || out.State == mcp.NeedsApproval || out.State == mcp.ApprovalStale {
		return out, err
	}
	if out.State != mcp.Connected {
		return out, fmt.Errorf("login to %s failed: %s", name, out.Error)
	}
	if _, err := c.reg.Restart(ctx, name); err != nil {
		return out, err
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	c.reg.Wait(wctx)
	out.State = c.serverState(name)
	return out, nil
}
