package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/agentls/agentls/wire"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/trust"
)

// cmdMCPList connects every startable server of the config, as the editor
// would, and prints one row per configured server with its tools and the
// policy each call would get. Workspace-tier servers are never started here
// unless their exact command was approved. Exit 0 once listed, even when
// servers failed (the list says why); 1 when a config file cannot be read or
// is not valid TOML; 2 on usage errors.
func cmdMCPList(args []string) int {
	fs := flag.NewFlagSet("mcp list", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	asJSON := fs.Bool("json", false, `print {"servers": [...]} (docs/protocol.md section 2)`)
	configPath, workspace, code := parseConfigWorkspace(fs, args, "agentls mcp list [--json] [--config FILE] [--workspace DIR]")
	if code >= 0 {
		return code
	}

	cfg := config.Load(configPath, []string{workspace})
	if configUnusable("mcp list", cfg) {
		return 1
	}
	for _, d := range cfg.Diagnostics {
		fmt.Fprintf(os.Stderr, "agentls: config: %s\n", oneLine(d.String()))
	}
	core, err := agent.Open(agent.Setup{Config: cfg, Roots: []string{workspace},
		Logf: logf})
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp list: %v\n", err)
		return 1
	}
	defer core.Close()

	// Ctrl-C stops waiting and lists what is known; Close still reaps.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	core.StartServers(ctx)
	// The registry's own connect and list timers end every attempt; this
	// bound only guards against waiting forever should one never fire.
	wait := 5 * time.Second
	for _, s := range cfg.MCP.Servers {
		wait = max(wait, s.EffectiveConnectTimeout()+s.EffectiveListTimeout()+5*time.Second)
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	core.WaitServers(wctx)
	cancel()

	rows := core.ServerList()
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(wire.ServersResult{Servers: rows}); err != nil {
			fmt.Fprintf(os.Stderr, "agentls mcp list: %v\n", err)
			return 1
		}
		return 0
	}
	printServerRows(os.Stdout, rows, workspace)
	return 0
}

// printServerRows is the human form of the list: per server its state, the
// literal command line, the MCP revision it speaks, env keys, cwd, what it may touch (sandbox), error and stderr tail; per tool its
// name, the server's own name, the policy, the server's hints and its cost.
func printServerRows(w io.Writer, rows []wire.Server, workspace string) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "No MCP servers configured. Add [mcp.servers.NAME] with command = \"...\" to your config.")
		return
	}
	for i, s := range rows {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s  (%s)  %s\n", oneLine(s.Name), s.Origin, s.State)
		if len(s.Command) > 0 && s.Command[0] != "" {
			fmt.Fprintf(w, "  command  %s\n", trust.ShellQuote(s.Command))
		}
		if s.URL != "" {
			fmt.Fprintf(w, "  url      %s\n", oneLine(s.URL))
			if s.Transport != "" {
				fmt.Fprintf(w, "  over     %s\n", oneLine(s.Transport))
			}
		}
		if s.Revision != "" {
			// Which MCP revision it answered with: 2026-07-28 (server/discover,
			// no session) or an initialize-based one (2025-11-25 and older).
			fmt.Fprintf(w, "  revision %s\n", oneLine(s.Revision))
		}
		if len(s.HeaderNames) > 0 {
			fmt.Fprintf(w, "  headers  %s (values not shown)\n", strings.Join(oneLines(s.HeaderNames), " "))
		}
		if len(s.EnvKeys) > 0 {
			fmt.Fprintf(w, "  env      %s\n", strings.Join(oneLines(s.EnvKeys), " "))
		}
		if s.Cwd != "" {
			fmt.Fprintf(w, "  cwd      %s\n", oneLine(s.Cwd))
		}
		if s.Sandbox != "" {
			fmt.Fprintf(w, "  sandbox  %s\n", trust.Visible(s.Sandbox))
		}
		switch s.State {
		case wire.ServerNeedsApproval:
			fmt.Fprintf(w, "  not started: approve it with  agentls mcp trust %s --workspace %s\n", oneLine(s.Name), oneLine(workspace))
		case wire.ServerApprovalStale:
			fmt.Fprintf(w, "  not started: its command (or url or headers) changed since you approved it; check it, then  agentls mcp trust %s --workspace %s\n", oneLine(s.Name), oneLine(workspace))
		}
		if s.Error != "" {
			fmt.Fprintf(w, "  error    %s\n", oneLine(s.Error))
		}
		for _, warn := range s.Warnings {
			fmt.Fprintf(w, "  warning  %s\n", oneLine(warn))
		}
		if s.StderrTail != "" && s.State != wire.ServerConnected && !strings.HasSuffix(s.Error, s.StderrTail) {
			fmt.Fprintf(w, "  stderr   | %s\n", strings.Join(oneLines(strings.Split(s.StderrTail, "\n")), "\n           | "))
		}
		if s.State != wire.ServerConnected {
			continue
		}
		fmt.Fprintf(w, "  tools    %d, ~%d schema tokens per turn\n", len(s.Tools), s.SchemaTokens)
		width := 0
		for _, t := range s.Tools {
			width = max(width, len(oneLine(t.Name)))
		}
		for _, t := range s.Tools {
			orig := ""
			if t.ServerTool != strings.TrimPrefix(t.Name, s.Name+"__") {
				orig = fmt.Sprintf("  (server's name %q)", t.ServerTool)
			}
			fmt.Fprintf(w, "    %-*s  %-5s  %5d tok%s%s\n", width, oneLine(t.Name), t.Policy, t.SchemaTokens, hints(t.Annotations), orig)
		}
	}
}

// hints shows a server's claims about a tool. They are untrusted: shown,
// never used to loosen the policy column.
func hints(a wire.Annotations) string {
	var h []string
	if a.ReadOnlyHint {
		h = append(h, "readOnly")
	}
	if a.DestructiveHint != nil && *a.DestructiveHint {
		h = append(h, "destructive")
	}
	if a.IdempotentHint {
		h = append(h, "idempotent")
	}
	if a.OpenWorldHint != nil && *a.OpenWorldHint {
		h = append(h, "openWorld")
	}
	if len(h) == 0 {
		return ""
	}
	return "  [" + strings.Join(h, " ") + "]"
}
