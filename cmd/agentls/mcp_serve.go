package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/mcpserve"
)

// cmdMCPServe is `agentls mcp serve`: the editor as an MCP server for an
// outside agent. On stdio (the default) it proxies to the running editor
// session whose workspace holds the folder, so the tools act on that
// editor; with no such session, or --no-editor, it serves the folder's
// disk itself, where nobody can answer a card (stdio is the client's), so
// the tools that ask are not offered. With --http it listens on
// 127.0.0.1 behind a token file and asks on this terminal.
func cmdMCPServe(args []string) int {
	fs := flag.NewFlagSet("mcp serve", flag.ContinueOnError)
	asHTTP := fs.Bool("http", false, "serve Streamable HTTP on 127.0.0.1 (a random port, a bearer token in a 0600 file) instead of stdio")
	noEditor := fs.Bool("no-editor", false, "serve the folder's disk even when an editor session serves it")
	configPath, workspace, code := parseConfigWorkspace(fs, args, "agentls mcp serve [--http] [--no-editor] [--config FILE] [--workspace DIR]")
	if code >= 0 {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	stateDir := config.StateDir()
	if !*asHTTP && !*noEditor {
		e, err := mcpserve.Find(stateDir, workspace)
		if err == nil {
			logf("agentls mcp serve: serving the %s session (pid %d) of %s", orUnnamed(e.Editor), e.PID, workspace)
			if err := mcpserve.Proxy(ctx, e, os.Stdin, os.Stdout); err != nil {
				fmt.Fprintf(os.Stderr, "agentls mcp serve: %v\n", err)
				return 1
			}
			return 0
		}
		if !errors.Is(err, mcpserve.ErrNoEditor) {
			fmt.Fprintf(os.Stderr, "agentls mcp serve: finding the editor session: %v\n", err)
		}
	}
	cfg := config.Load(configPath, []string{workspace})
	if configUnusable("mcp serve", cfg) {
		return 1
	}
	if r := tools.RefusedRoot(workspace); r != "" {
		fmt.Fprintf(os.Stderr, "agentls: %s.\n", tools.RefusedRootMessage(r))
	}
	// No MCP server starts: an outside agent gets the editor's tools,
	// never agentls's servers.
	core, err := agent.Open(agent.Setup{Config: cfg, Roots: []string{workspace}, Logf: logf})
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp serve: %v\n", err)
		return 1
	}
	defer core.Close()
	if !*asHTTP {
		logf("agentls mcp serve: no editor session serves %s: serving its disk (no card can be shown, so nothing that asks is offered)", workspace)
		srv := mcpserve.New(mcpserve.DiskEditor(core, workspace, nil), mcpserve.Options{Version: version, Logf: logf})
		if err := srv.ServeStdio(ctx, os.Stdin, nopCloser{os.Stdout}); err != nil {
			fmt.Fprintf(os.Stderr, "agentls mcp serve: %v\n", err)
			return 1
		}
		return 0
	}
	var ap agent.Approver
	if isTerminal(os.Stdin) {
		ap = &terminalApprover{in: os.Stdin, out: os.Stderr}
	}
	srv := mcpserve.New(mcpserve.DiskEditor(core, workspace, ap), mcpserve.Options{Version: version, Logf: logf})
	// Nothing is published: no socket is needed (socket.go).
	l, err := srv.ListenHTTP(ctx, mcpserve.TokenPath(stateDir, os.Getpid()), "")
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp serve: %v\n", err)
		return 1
	}
	defer l.Close()
	printConnect(os.Stdout, l.URL, l.TokenFile)
	if ap == nil {
		logf("agentls mcp serve: no terminal to answer cards on: the tools that ask are not offered")
	}
	<-ctx.Done()
	return 0
}

func orUnnamed(editor string) string {
	if editor == "" {
		return "editor"
	}
	return editor
}

// printConnect says where the server is and how a client connects, with
// the token read from its file where the config is pasted (never printed).
func printConnect(w io.Writer, url, tokenFile string) {
	fmt.Fprintf(w, "agentls mcp serve: listening on %s\n", url)
	fmt.Fprintf(w, "bearer token in %s (mode 0600; removed when this ends)\n\n", tokenFile)
	fmt.Fprintf(w, "Claude Code:\n  claude mcp add --transport http agentls %s --header \"Authorization: Bearer $(cat %s)\"\n\n", url, tokenFile)
	fmt.Fprintf(w, "a generic MCP client (mcpServers JSON):\n  {\"mcpServers\": {\"agentls\": {\"type\": \"http\", \"url\": %q,\n    \"headers\": {\"Authorization\": \"Bearer <the content of %s>\"}}}}\n", url, tokenFile)
}

// nopCloser keeps stdout open when the SDK closes its writer.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
