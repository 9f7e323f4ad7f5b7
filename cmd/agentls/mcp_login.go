package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/wire"
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
			fmt.Fprintf(os.Stderr, "agentls mcp %s: %s: %s\n", cmd, oneLine(c.Name), oneLine(c.Err))
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
	s.ConnectTimeout = max(s.ConnectTimeout, loginWait)
	logf := func(format string, a ...any) { fmt.Fprintf(os.Stderr, "agentls: "+format+"\n", a...) }
	browser := func(ctx context.Context, server, authURL string) error {
		fmt.Fprintf(os.Stderr, "Open this URL in your browser to authorize agentls for %s:\n\n  %s\n\nWaiting for the browser (up to %s)...\n", server, authURL, loginWait)
		return nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out, err := agent.LoginRemote(ctx, s, stateDir, browser, logf)
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "agentls mcp login: %v\n", err)
		return 1
	case out.State == wire.ServerNeedsApproval || out.State == wire.ServerApprovalStale:
		fmt.Fprintf(os.Stderr, "agentls mcp login: %s comes from the workspace config and is not approved (%s): check it with  agentls mcp trust %s  first\n", s.Name, out.State, s.Name)
		return 1
	case out.State != wire.ServerConnected:
		fmt.Fprintf(os.Stderr, "agentls mcp login: %s: %s\n", out.State, oneLine(out.Error))
		return 1
	case !out.TokenStored:
		fmt.Printf("%s connected without asking for authorization; no token was stored.\n", s.Name)
		return 0
	}
	fmt.Printf("Logged in to %s (%s); the token is stored in %s (mode 0600).\n", s.Name, s.URL, agent.TokenStorePath(stateDir))
	return 0
}

// cmdMCPLogout forgets a remote server's stored token.
func cmdMCPLogout(args []string) int {
	s, stateDir, code := remoteServer("logout", args)
	if code >= 0 {
		return code
	}
	found, err := agent.LogoutRemote(stateDir, s.URL)
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
