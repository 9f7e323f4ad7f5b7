package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

// Setup is what a front knows when it opens the agent. Open builds the rest
// (config, trust store, MCP registry, Core) the same way for every front.
type Setup struct {
	// Config is the config already loaded (a front that must read it before
	// opening, e.g. to check the model); nil: Open loads UserConfig and Roots.
	Config *config.Config
	// UserConfig is the user config file as config.Load takes it ("": none).
	UserConfig string
	// Roots are the workspace roots; the first is the Core's root. None:
	// the process's current directory.
	Roots []string
	// Editor are the MCP servers an ACP editor passes for a session, loaded
	// as their own untrusted tier (config.AddEditorServers).
	Editor []config.EditorServer
	// StateDir holds sessions, transcripts and trust.json; "" = config.StateDir().
	StateDir string
	// Provider is the model; nil: chosen from the config at the first run.
	Provider model.Provider
	// Logf is the core's log; ServerLogf the MCP registry's (nil: Logf).
	// Both get their lines redacted (Open wraps them): a front may write
	// them as they come.
	Logf, ServerLogf func(format string, args ...any)
	// OnServersChange is called after any server's state changes.
	OnServersChange func()
}

// Open builds config → trust store → MCP registry → Core. The Core owns
// the registry and the store: Close cancels every task, then stops every
// MCP server. Servers are not started: call StartServers.
func Open(s Setup) (*Core, error) {
	s.Logf, s.ServerLogf = redactingLog(s.Logf), redactingLog(s.ServerLogf)
	cfg := s.Config
	if cfg == nil {
		roots := s.Roots
		if len(roots) == 0 {
			wd, err := os.Getwd()
			if err != nil {
				return nil, errors.New("agent: no workspace folder and no current directory: " + err.Error())
			}
			roots = []string{wd}
		}
		cfg = config.Load(s.UserConfig, roots)
	}
	root := ""
	if len(s.Roots) > 0 {
		root = s.Roots[0]
	}
	if len(s.Editor) > 0 {
		config.AddEditorServers(cfg, root, s.Editor)
	}
	stateDir := s.StateDir
	if stateDir == "" {
		stateDir = config.StateDir()
	}
	if stateDir == "" {
		return nil, errors.New("agent: no state directory for sessions and the trust store: set XDG_STATE_HOME or HOME")
	}
	store := trust.OpenStore(filepath.Join(stateDir, "trust.json"))
	opts := RegistryOptions(cfg, store)
	opts.Logf, opts.OnChange = s.ServerLogf, s.OnServersChange
	opts.Tokens = mcp.OpenTokenStore(filepath.Join(stateDir, "oauth-tokens.json"))
	opts.Roots = s.Roots
	if len(opts.Roots) == 0 {
		if wd, err := os.Getwd(); err == nil {
			opts.Roots = []string{wd}
		}
	}
	// A refused root (one holding the home directory) is no server's
	// root either: roots/list must not offer a server the user's home.
	var roots []string
	for _, r := range opts.Roots {
		if tools.RefusedRoot(r) == "" {
			roots = append(roots, r)
		}
	}
	opts.Roots = roots
	if opts.Logf == nil {
		opts.Logf = s.Logf
	}
	reg := mcp.NewRegistry(cfg.MCP.Servers, opts)
	c, err := New(Options{Config: cfg, Registry: reg, Store: store, Provider: s.Provider,
		StateDir: stateDir, Logf: s.Logf, Root: root})
	if err != nil {
		if cerr := reg.Close(); cerr != nil && s.Logf != nil {
			s.Logf("agentls: closing MCP servers: %v", cerr)
		}
		return nil, err
	}
	c.loaded = cfg
	c.ownsRegistry = true
	return c, nil
}

// Config is the config this Core was opened with, its diagnostics included.
// A Core from New returns its own copy, with the defaults applied.
func (c *Core) Config() *config.Config {
	if c.loaded != nil {
		return c.loaded
	}
	return &c.cfg
}

// StartServers connects every configured server that may start, in the
// background; workspace-tier servers wait for TrustServer (G1).
func (c *Core) StartServers(ctx context.Context) {
	if c.reg != nil {
		c.reg.Start(ctx)
	}
}

// WaitServers waits until no server is still connecting, or ctx ends.
func (c *Core) WaitServers(ctx context.Context) {
	if c.reg != nil {
		c.reg.Wait(ctx)
	}
}

// Servers is every configured server's state, without the policy column
// (ServerList has it).
func (c *Core) Servers() []mcp.ServerInfo {
	if c.reg == nil {
		return nil
	}
	return c.reg.Servers()
}

// SetRoots makes folders the roots every MCP server sees (the editor
// opened or closed a workspace folder); connected servers are notified.
// It blocks while they are (each notification is bounded).
func (c *Core) SetRoots(folders []string) {
	if c.reg != nil {
		c.reg.SetRoots(folders)
	}
}

// RestartServer stops a server and starts it again (agent/mcp/restart).
func (c *Core) RestartServer(ctx context.Context, name string) (mcp.State, error) {
	if c.reg == nil {
		return "", errors.New("agentls: no MCP servers are configured")
	}
	return c.reg.Restart(ctx, name)
}

// redactingLog is logf with every line redacted (G4): a log is copied
// around (bug reports, an editor's log file), and a line may quote a
// server's log message, stderr or error, which may carry a token. Every
// front's core and registry logs go through it, whatever the front writes
// them to (stderr, for agentls acp and agentls run).
func redactingLog(logf func(string, ...any)) func(string, ...any) {
	if logf == nil {
		return nil
	}
	return func(format string, a ...any) { logf("%s", trust.Redact(fmt.Sprintf(format, a...))) }
}
