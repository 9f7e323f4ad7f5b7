package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// cmdMCPTrust is `agentls mcp trust NAME [--config FILE] [--workspace DIR]`:
// it shows a workspace server's launch card on the terminal and records the
// approval for exactly the fingerprint shown. Without a terminal it refuses:
// a script piping "y" must never be the thing that lets a repo run code.
func cmdMCPTrust(args []string) int {
	fs := flag.NewFlagSet("agentls mcp trust", flag.ContinueOnError)
	cfgPath := fs.String("config", "", "user config `file` (default $AGENTLS_CONFIG, else ~/.config/agentls/config.toml)")
	wsDir := fs.String("workspace", "", "workspace `folder` whose server to approve (default: the current directory)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: agentls mcp trust NAME [--config FILE] [--workspace DIR]")
		fs.PrintDefaults()
	}
	names, code := parseArgs(fs, args)
	if code >= 0 {
		return code
	}
	if len(names) != 1 {
		fmt.Fprintf(os.Stderr, "agentls mcp trust: expected one server name, got %d\n", len(names))
		fs.Usage()
		return 2
	}
	name := names[0]
	root, err := workspaceRoot(*wsDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp trust: %v\n", err)
		return 1
	}
	userPath := *cfgPath
	if userPath == "" {
		userPath = config.UserPath()
	}
	cfg := config.Load(userPath, []string{root})
	if configUnusable("mcp trust", cfg) {
		return 1
	}

	srv, ok := findServer(cfg, name)
	if !ok {
		fmt.Fprintf(os.Stderr, "agentls mcp trust: no MCP server named %q in %s or %s\n", name, shownPath(userPath), config.WorkspacePath(root))
		if list := serverNames(cfg); list != "" {
			fmt.Fprintf(os.Stderr, "configured servers: %s\n", list)
		}
		for _, d := range cfg.Diagnostics {
			fmt.Fprintf(os.Stderr, "  %s\n", oneLine(d.String()))
		}
		return 1
	}
	if srv.Origin == config.User {
		fmt.Printf("'%s' is from your user config (%s): user-tier servers start without approval.\n", srv.Name, srv.Source)
		return 0
	}
	if srv.Err != "" {
		fmt.Fprintf(os.Stderr, "agentls mcp trust: '%s' cannot be approved: its entry is broken and will not start: %s\n", oneLine(srv.Name), oneLine(srv.Err))
		return 1
	}

	core, err := agent.Open(agent.Setup{Config: cfg, Roots: []string{root}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp trust: %v\n", err)
		return 1
	}
	defer core.Close()
	consent, err := core.LaunchConsentOf(srv.Name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp trust: %v\n", err)
		return 1
	}
	if consent == agent.ConsentGiven {
		fmt.Printf("'%s' is already approved for %s with exactly this command line; nothing to do.\n", srv.Name, srv.WorkspaceRoot)
		return 0
	}
	if !isTerminal(os.Stdin) {
		fmt.Fprintln(os.Stderr, "agentls mcp trust: standard input is not a terminal. Approving a server lets it run a program with your privileges, so a person must read the card and answer: run this command in a terminal.")
		return 1
	}
	// The card is the core's, shown literally; consent is recorded for
	// exactly its fingerprint (a config edited meanwhile is not approved).
	err = core.ApproveLaunch(context.Background(), srv.Name, launchPrompt{stale: consent == agent.ConsentStale, name: srv.Name})
	if errors.Is(err, agent.ErrDenied) {
		fmt.Println("Not approved; nothing changed.")
		return 1
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp trust: %v\n", err)
		return 1
	}
	fmt.Printf("Approved '%s' for %s. It starts when agentls next loads this workspace; any change to its command, args, env, cwd, sandbox or network asks again.\n", srv.Name, srv.WorkspaceRoot)
	return 0
}

// launchPrompt shows a launch card on the terminal and reads y/N.
type launchPrompt struct {
	stale bool
	name  string
}

func (l launchPrompt) RequestApproval(ctx context.Context, a wire.Approval) (string, error) {
	fmt.Printf("%s\n\n%s\n\n", oneLine(a.Title), trust.VisibleText(a.Detail))
	if l.stale {
		fmt.Printf("You approved a different command line for '%s' before: the repository has changed it since.\n", l.name)
	}
	if extra := launchKeys(a); extra != "" {
		fmt.Printf("Start this server? [y] allow, confined  %s  [N] deny: ", oneLine(extra))
	} else {
		fmt.Print("Start this server? [y/N] ")
	}
	answer, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the answer: %w", err)
	}
	if opt := launchAnswer(a, strings.ToLower(strings.TrimSpace(answer))); opt != "" {
		return opt, nil
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		for _, o := range a.Options {
			if o.Kind == wire.OptionAllowOnce {
				return o.OptionID, nil
			}
		}
	}
	return string(wire.OptionRejectOnce), nil
}

// cmdMCPRevoke is `agentls mcp revoke NAME|--all [--workspace DIR]`. It only
// forgets approvals: a running server keeps running (it is not ours to kill
// from another process) and asks before it starts again.
func cmdMCPRevoke(args []string) int {
	fs := flag.NewFlagSet("agentls mcp revoke", flag.ContinueOnError)
	all := fs.Bool("all", false, "revoke every launch approval of the workspace")
	wsDir := fs.String("workspace", "", "workspace `folder` (default: the current directory)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: agentls mcp revoke NAME|--all [--workspace DIR]")
		fs.PrintDefaults()
	}
	names, code := parseArgs(fs, args)
	if code >= 0 {
		return code
	}
	if (*all && len(names) != 0) || (!*all && len(names) != 1) {
		fmt.Fprintln(os.Stderr, "agentls mcp revoke: give one server name, or --all")
		fs.Usage()
		return 2
	}
	root, err := workspaceRoot(*wsDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp revoke: %v\n", err)
		return 1
	}
	core, err := agent.Open(agent.Setup{UserConfig: config.UserPath(), Roots: []string{root}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp revoke: %v\n", err)
		return 1
	}
	defer core.Close()
	const after = "A server that is running keeps running; it will ask before it starts again."
	name := ""
	if !*all {
		name = names[0]
	}
	revoked, err := core.RevokeServer(name)
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "agentls mcp revoke: %v\n", err)
		return 1
	case *all && len(revoked) == 0:
		fmt.Printf("No launch approvals to revoke for %s.\n", root)
	case *all:
		fmt.Printf("Revoked the launch approval of %d server(s) for %s: %s.\n%s\n", len(revoked), root, strings.Join(revoked, ", "), after)
	case len(revoked) == 0:
		fmt.Printf("'%s' has no launch approval for %s; nothing to revoke.\n", name, root)
	default:
		fmt.Printf("Revoked the launch approval of '%s' for %s.\n%s\n", name, root, after)
	}
	return 0
}

// parseArgs parses flags wherever they stand among the operands. code is -1
// to go on, else the exit code (0 for -h).
func parseArgs(fs *flag.FlagSet, args []string) (operands []string, code int) {
	fs.SetOutput(os.Stderr)
	for {
		// On an error flag has already printed it and the usage.
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, 0
		} else if err != nil {
			return nil, 2
		}
		args = fs.Args()
		if len(args) == 0 {
			return operands, -1
		}
		operands = append(operands, args[0])
		args = args[1:]
	}
}

// workspaceRoot is dir (or the current directory) made absolute, the way
// config.Load keys workspace roots.
func workspaceRoot(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("cannot find the current directory: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %q: %w", dir, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", fmt.Errorf("workspace %q is not a folder", dir)
	}
	return filepath.Clean(abs), nil
}

func findServer(cfg *config.Config, name string) (config.Server, bool) {
	for _, s := range cfg.MCP.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return config.Server{}, false
}

func serverNames(cfg *config.Config) string {
	var names []string
	for _, s := range cfg.MCP.Servers {
		names = append(names, fmt.Sprintf("%s (%s)", oneLine(s.Name), s.Origin))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func shownPath(p string) string {
	if p == "" {
		return "(no user config)"
	}
	return p
}
