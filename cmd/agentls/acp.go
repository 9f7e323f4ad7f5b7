package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentls/agentls/acp"
	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/config"
)

// cmdACP serves the Agent Client Protocol on stdio until stdin ends, a
// signal, or the death of the process that started it; every task and every
// MCP server ends before it returns.
func cmdACP(args []string) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	configPath := fs.String("config", "", "user config file (default $AGENTLS_CONFIG or ~/.config/agentls/config.toml)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "agentls acp: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	// The user's config must be usable before the editor is served; a
	// project's own file is read per session and reported there.
	userPath := *configPath
	if userPath == "" {
		userPath = config.UserPath()
	}
	if configUnusable("acp", config.Load(userPath, nil)) {
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	logf := func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }
	// The editor dying ends agentls even when stdin stays open.
	ctx, unwatch := watchParent(ctx, logf)
	defer unwatch()
	a := acp.New(acp.Options{Version: version, Logf: logf, Open: func(cwd string, dirs []string, editor []config.EditorServer) (*agent.Core, func(), error) {
		return openCore(ctx, userPath, append([]string{cwd}, dirs...), editor, logf)
	}})
	if err := a.Serve(ctx, os.Stdin, os.Stdout); err != nil {
		logf("agentls acp: %v", err)
		return 1
	}
	return 0
}

// openCore builds the core for a session's workspace roots (its cwd
// first) as the LSP front does: the config of the user file and the roots,
// the trust store, the registry with the editor's servers as their own
// untrusted tier; the roots are the MCP servers' roots.
func openCore(ctx context.Context, userPath string, roots []string, editor []config.EditorServer, logf func(string, ...any)) (*agent.Core, func(), error) {
	for _, root := range roots {
		if r := tools.RefusedRoot(root); r != "" {
			logf("agentls: %s.", tools.RefusedRootMessage(r))
		}
	}
	core, err := agent.Open(agent.Setup{UserConfig: userPath, Roots: roots, Editor: editor, Logf: logf})
	if err != nil {
		return nil, nil, err
	}
	for _, d := range core.Config().Diagnostics {
		logf("agentls: config: %s", d)
	}
	core.StartServers(context.WithoutCancel(ctx))
	return core, core.Close, nil
}
