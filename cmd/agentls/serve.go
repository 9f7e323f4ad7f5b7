package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/server"
)

// stdio is the editor's end of the connection: we read stdin, write stdout.
type stdio struct {
	io.Reader
	io.Writer
}

// Close closes stdin only: the connection closes its stream when stdin
// ends, and the replies still owed (a cancelled agent/run) must go out on
// stdout. A read blocked on stdin may not return, which is why the process
// exits from main rather than waiting for it.
func (stdio) Close() error { return os.Stdin.Close() }

// cmdServe serves LSP on stdio until exit, stdin EOF, SIGTERM or the death
// of the process that started it; every task and every MCP server ends
// before it returns.
func cmdServe(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	configPath := fs.String("config", "", "user config file (default $AGENTLS_CONFIG or ~/.config/agentls/config.toml)")
	fs.Bool("stdio", true, "serve on stdio (the only transport; accepted because editors pass it)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "agentls serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	// The user's config must be usable before the editor is served; a
	// workspace's own file is read later, per folder, and reported in the
	// editor, so a repository cannot keep agentls from starting.
	userPath := *configPath
	if userPath == "" {
		userPath = config.UserPath()
	}
	if configUnusable("serve", config.Load(userPath, nil)) {
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	// Only real problems reach stderr (editors log it as errors);
	// informational notes go to window/logMessage.
	logf := func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }
	// The editor dying ends agentls even when stdin stays open.
	ctx, unwatch := watchParent(ctx, logf)
	defer unwatch()
	srv := server.New(server.Options{Version: version, UserConfig: *configPath, Logf: logf})
	return srv.Serve(ctx, stdio{Reader: os.Stdin, Writer: os.Stdout})
}
