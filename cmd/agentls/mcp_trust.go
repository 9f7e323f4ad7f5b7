package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/trust"
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

	srv, ok := findServer(cfg, name)
	if !ok {
		fmt.Fprintf(os.Stderr, "agentls mcp trust: no MCP server named %q in %s or %s\n", name, shownPath(userPath), config.WorkspacePath(root))
		if list := serverNames(cfg); list != "" {
			fmt.Fprintf(os.Stderr, "configured servers: %s\n", list)
		}
		for _, d := range cfg.Diagnostics {
			fmt.Fprintf(os.Stderr, "  %s\n", d)
		}
		return 1
	}
	if srv.Origin == config.User {
		fmt.Printf("'%s' is from your user config (%s): user-tier servers start without approval.\n", srv.Name, srv.Source)
		return 0
	}
	if srv.Err != "" {
		fmt.Fprintf(os.Stderr, "agentls mcp trust: '%s' cannot be approved: its entry is broken and will not start: %s\n", srv.Name, srv.Err)
		return 1
	}

	store, err := openStore()
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp trust: %v\n", err)
		return 1
	}
	fp := trust.ServerFingerprint(srv)
	state, err := store.LaunchState(srv.WorkspaceRoot, srv.Name, fp)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp trust: %v\n", err)
		return 1
	}
	if state == trust.Trusted {
		fmt.Printf("'%s' is already approved for %s with exactly this command line; nothing to do.\n", srv.Name, srv.WorkspaceRoot)
		return 0
	}
	if !isTerminal(os.Stdin) {
		fmt.Fprintln(os.Stderr, "agentls mcp trust: standard input is not a terminal. Approving a server lets it run a program with your privileges, so a person must read the card and answer: run this command in a terminal.")
		return 1
	}

	title, detail := trust.LaunchCard(srv)
	fmt.Printf("%s\n\n%s\n\n", title, detail)
	if state == trust.ApprovalStale {
		fmt.Printf("You approved a different command line for '%s' before: the repository has changed it since.\n", srv.Name)
	}
	fmt.Print("Start this server? [y/N] ")
	answer, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintf(os.Stderr, "\nagentls mcp trust: reading the answer: %v\n", err)
		return 1
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
	default:
		fmt.Println("Not approved; nothing changed.")
		return 1
	}
	// Exactly the fingerprint of the card shown: a config edited meanwhile is not approved.
	if err := store.ApproveLaunch(srv.WorkspaceRoot, srv.Name, fp); err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp trust: %v\n", err)
		return 1
	}
	fmt.Printf("Approved '%s' for %s. It starts when agentls next loads this workspace; any change to its command, args, env, cwd, sandbox or network asks again.\n", srv.Name, srv.WorkspaceRoot)
	return 0
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
	store, err := openStore()
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp revoke: %v\n", err)
		return 1
	}
	const after = "A server that is running keeps running; it will ask before it starts again."
	if *all {
		revoked, err := store.RevokeAll(root)
		if err != nil {
			fmt.Fprintf(os.Stderr, "agentls mcp revoke: %v\n", err)
			return 1
		}
		if len(revoked) == 0 {
			fmt.Printf("No launch approvals to revoke for %s.\n", root)
			return 0
		}
		fmt.Printf("Revoked the launch approval of %d server(s) for %s: %s.\n%s\n", len(revoked), root, strings.Join(revoked, ", "), after)
		return 0
	}
	name := names[0]
	approved, err := store.Approvals(root)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp revoke: %v\n", err)
		return 1
	}
	if _, ok := approved[name]; !ok {
		fmt.Printf("'%s' has no launch approval for %s; nothing to revoke.\n", name, root)
		return 0
	}
	if err := store.Revoke(root, name); err != nil {
		fmt.Fprintf(os.Stderr, "agentls mcp revoke: %v\n", err)
		return 1
	}
	fmt.Printf("Revoked the launch approval of '%s' for %s.\n%s\n", name, root, after)
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

func openStore() (*trust.Store, error) {
	p := trust.DefaultStorePath()
	if p == "" {
		return nil, errors.New("no state directory for the trust store: set XDG_STATE_HOME or HOME")
	}
	return trust.OpenStore(p), nil
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
		names = append(names, fmt.Sprintf("%s (%s)", s.Name, s.Origin))
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
