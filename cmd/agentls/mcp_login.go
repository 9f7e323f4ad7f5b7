package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

// loginWait is how long `agentls mcp login` waits for the browser.
const loginWait = 5 * time.Minute

// remoteServer loads the config and finds a remote server by name.
func remoteServer(cmd string, args []string) (s config.Server, stateDir string, code int) {
	fs := flag.NewFlagSet("agentls mcp "+cmd, flag.ContinueOnError)
	wsDir := fs.String("workspace", "", "workspace `folder` (default: the current directory)")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: agentls mcp %s NAME [--workspace DIR]\n", cmd)
		fs.PrintDefaults()
	}
	names, code := parseArgs(fs, args)
	if code >= 0 {
		return s, "", code
	}
	if len(names) != 1 {
		fmt.Fprintf(os.Stderr, "agentls mcp %s: give one server name\n", cmd)
		fs.Usage()
		return s, "", 2
	}
	root, err := workspaceRoot(*wsDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp %s: %v\n", cmd, err)
		return s, "", 1
	}
	cfg := config.Load(config.UserPath(), []string{root})
	if configUnusable("mcp "+cmd, cfg) {
		return s, "", 1
	}
	for _, c := range cfg.MCP.Servers {
		if c.Name != names[0] {
			continue
		}
		if !c.Remote() {
			fmt.Fprintf(os.Stderr, "agentls mcp %s: %q is not a remote server (it has command, not url)\n", cmd, c.Name)
			return s, "", 2
		}
		if c.Err != "" {
			fmt.Fprintf(os.Stderr, "agentls mcp %s: %s: %s\n", cmd, c.Name, c.Err)
			return s, "", 1
		}
		stateDir = config.StateDir()
		if stateDir == "" {
			fmt.Fprintf(os.Stderr, "agentls mcp %s: no state directory: set XDG_STATE_HOME or HOME\n", cmd)
			return s, "", 1
		}
		return c, stateDir, -1
	}
	fmt.Fprintf(os.Stderr, "agentls mcp %s: no server named %q in the config\n", cmd, names[0])
	return s, "", 2
}

func tokenStorePath(stateDir string) string { return filepath.Join(stateDir, "oauth-tokens.json") }

// cmdMCPLogin authorizes agentls with a remote server's authorization
// server (OAuth 2.1 with PKCE: discovery, dynamic client registration or
// the configured client) and stores the token (0600). The browser step is
// a printed URL; the authorization server redirects to a loopback listener.
// A repository's server must have been approved first (agentls mcp trust).
func cmdMCPLogin(args []string) int {
	s, stateDir, code := remoteServer("login", args)
	if code >= 0 {
		return code
	}
	store := trust.OpenStore(filepath.Join(stateDir, "trust.json"))
	tokens := mcp.OpenTokenStore(tokenStorePath(stateDir))
	s.ConnectTimeout = max(s.ConnectTimeout, loginWait)
	opts := agent.RegistryOptions(&config.Config{MCP: config.MCP{LogLevel: config.DefaultMCPLogLevel}}, store)
	opts.Tokens = tokens
	opts.Logf = func(format string, a ...any) { fmt.Fprintf(os.Stderr, "agentls: "+format+"\n", a...) }
	opts.Browser = func(ctx context.Context, server, authURL string) error {
		fmt.Fprintf(os.Stderr, "Open this URL in your browser to authorize agentls for %s:\n\n  %s\n\nWaiting for the browser (up to %s)...\n", server, authURL, loginWait)
		return nil
	}
	r := mcp.NewRegistry([]config.Server{s}, opts)
	defer r.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := r.StartServer(ctx, s.Name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp login: %v\n", err)
		return 1
	}
	if st == mcp.NeedsApproval || st == mcp.ApprovalStale {
		fmt.Fprintf(os.Stderr, "agentls mcp login: %s comes from the workspace config and is not approved (%s): check it with  agentls mcp trust %s  first\n", s.Name, st, s.Name)
		return 1
	}
	r.Wait(ctx)
	info := r.Servers()[0]
	if info.State != mcp.Connected {
		fmt.Fprintf(os.Stderr, "agentls mcp login: %s: %s\n", info.State, info.Error)
		return 1
	}
	if !tokens.Has(s.URL) {
		fmt.Printf("%s connected without asking for authorization; no token was stored.\n", s.Name)
		return 0
	}
	fmt.Printf("Logged in to %s (%s); the token is stored in %s (mode 0600).\n", s.Name, s.URL, tokenStorePath(stateDir))
	return 0
}

// cmdMCPLogout forgets a remote server's stored token.
func cmdMCPLogout(args []string) int {
	s, stateDir, code := remoteServer("logout", args)
	if code >= 0 {
		return code
	}
	found, err := mcp.OpenTokenStore(tokenStorePath(stateDir)).Forget(s.URL)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp logout: %v\n", err)
		return 1
	}
	if !found {
		fmt.Printf("No token stored for %s (%s).\n", s.Name, s.URL)
		return 0
	}
	fmt.Printf("Logged out of %s: its token is deleted.\n", s.Name)
	return 0
}
