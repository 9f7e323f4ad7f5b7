package agent

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/wire"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

// ErrDenied is returned when the user (or the absence of one) said no.
var ErrDenied = errors.New("denied by the user")

// ServerList is the server list of docs/protocol.md section 2.
func (c *Core) ServerList() []wire.Server {
	if c.reg == nil {
		return []wire.Server{}
	}
	return ServerRows(c.reg.Servers(), c.policy())
}

// TrustServer shows the launch card for a workspace server through the
// approver, records consent and starts it. Returns the server's state.
// A denial (or no approver) returns the unchanged state and ErrDenied.
// When the store already trusts the server's current fingerprint it asks
// nothing: it starts the server unless it is running and returns its state.
// A caller asking while a card for the same server (root, name and
// fingerprint) is on screen shows no second card: it waits for that card's
// outcome, or its own ctx, and gets the same result; if the first caller
// went away unanswered, it asks its own user.
func (c *Core) TrustServer(ctx context.Context, name string, ap Approver) (mcp.State, error) {
	if c.reg == nil {
		return "", errors.New("no MCP servers are configured")
	}
	srv, ok := c.reg.Server(name)
	if !ok {
		return "", fmt.Errorf("no MCP server named %q in the config (see agent/mcp/servers)", name)
	}
	if srv.Origin == config.User {
		// The user typed this entry: it needs no launch consent (G1 is for repos).
		return c.reg.StartServer(ctx, name)
	}
	if c.store == nil {
		return c.serverState(name), errors.New("no trust store: cannot record a launch approval")
	}
	fp := trust.ServerFingerprint(srv)
	key := launchKey{srv.WorkspaceRoot, name, fp}
	for {
		f, lead, trusted := c.joinLaunch(key, srv)
		switch {
		case trusted:
			return c.reg.StartServer(ctx, name)
		case lead:
			return c.leadLaunch(ctx, key, f, srv, ap)
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			c.leaveLaunch(f)
			return c.serverState(name), fmt.Errorf("start MCP server %q: stopped waiting for its launch card: %w", name, ctx.Err())
		}
		if !f.retry {
			return f.state, f.err
		}
	}
}

// leadLaunch shows the launch card, records consent and starts the server,
// then hands the outcome to every caller that joined the card meanwhile.
func (c *Core) leadLaunch(ctx context.Context, key launchKey, f *launchFlight, srv config.Server, ap Approver) (st mcp.State, err error) {
	defer func() { c.endLaunch(key, f, st, err, err != nil && ctx.Err() != nil) }()
	a := c.launchApproval(key.name, srv)
	opt, how := c.ask(ctx, a, ap)
	if how != approved {
		return c.serverState(key.name), fmt.Errorf("start MCP server %q: %w", key.name, ErrDenied)
	}
	if err := c.store.ApproveLaunch(key.root, key.name, launchFingerprint(srv, opt)); err != nil {
		return c.serverState(key.name), fmt.Errorf("record launch approval for %q: %w", key.name, err)
	}
	return c.reg.StartServer(ctx, key.name)
}

// launchApproval is the launch card of srv: the literal command line, env
// names, cwd (or URL and header names) and what the sandbox lets it touch.
func (c *Core) launchApproval(name string, srv config.Server) wire.Approval {
	title, detail := trust.LaunchCard(srv)
	a := wire.Approval{
		ApprovalID: c.newApprovalID(), Kind: wire.ApprovalMCPLaunch, Title: title, Detail: detail,
		Server: name, Command: append([]string{srv.Command}, srv.Args...), Env: envPairs(srv.Env), Cwd: srv.Cwd,
		Options: []wire.ApprovalOption{{OptionID: string(wire.OptionAllowOnce), Name: "Trust and start", Kind: wire.OptionAllowOnce}, tools.RejectOnce},
	}
	if trust.OffersChoices(srv) {
		// The entry cannot say how to confine it (ACP has no key for it):
		// the user picks, the card's choices line saying what each allows.
		// allow_once stays the entry's own way, for clients that know no other.
		a.Options = []wire.ApprovalOption{
			{OptionID: string(wire.OptionAllowOnce), Name: "Trust and start, confined (no network)", Kind: wire.OptionAllowOnce},
			{OptionID: wire.OptionLaunchNetwork, Name: "Trust and start with network (confined otherwise)", Kind: wire.OptionAllowOnce},
			{OptionID: wire.OptionLaunchUnconfined, Name: "Trust and start unconfined (your full access)", Kind: wire.OptionAllowOnce},
			tools.RejectOnce,
		}
	}
	if srv.Remote() {
		a.Command, a.Env, a.Cwd, a.URL = nil, nil, "", srv.URL
		for k := range srv.Headers {
			a.Headers = append(a.Headers, k)
		}
		sort.Strings(a.Headers)
		a.Options[0].Name = "Trust and connect"
	}
	return a
}

// LaunchConsent is where a configured server stands with respect to launch
// consent (G1).
type LaunchConsent int

// The launch consents.
const (
	ConsentUserTier LaunchConsent = iota // the user typed it: it starts without a card
	ConsentGiven                         // approved for exactly its current command line
	ConsentNeeded                        // never approved in its workspace
	ConsentStale                         // approved for a command line the repository has changed since
)

// LaunchConsentOf says where the configured server named name stands. An
// unreadable trust store is an error (and the server needs consent).
func (c *Core) LaunchConsentOf(name string) (LaunchConsent, error) {
	srv, ok := c.configuredServer(name)
	if !ok {
		return ConsentNeeded, fmt.Errorf("no MCP server named %q in the config", name)
	}
	if srv.Origin == config.User {
		return ConsentUserTier, nil
	}
	if c.store == nil {
		return ConsentNeeded, errors.New("no trust store: cannot read launch approvals")
	}
	st, _, err := c.store.ServerLaunch(srv)
	switch {
	case err != nil:
		return ConsentNeeded, err
	case st == trust.Trusted:
		return ConsentGiven, nil
	case st == trust.ApprovalStale:
		return ConsentStale, nil
	}
	return ConsentNeeded, nil
}

// ApproveLaunch shows a workspace server's launch card through ap and, on
// consent, records it for exactly the command line on the card without
// starting the server (agentls mcp trust: it starts when agentls next loads
// the workspace). Not approved: ErrDenied.
func (c *Core) ApproveLaunch(ctx context.Context, name string, ap Approver) error {
	srv, ok := c.configuredServer(name)
	if !ok {
		return fmt.Errorf("no MCP server named %q in the config", name)
	}
	if c.store == nil {
		return errors.New("no trust store: cannot record a launch approval")
	}
	opt, how := c.ask(ctx, c.launchApproval(name, srv), ap)
	if how != approved {
		return fmt.Errorf("start MCP server %q: %w", name, ErrDenied)
	}
	return c.store.ApproveLaunch(srv.WorkspaceRoot, srv.Name, launchFingerprint(srv, opt))
}

// launchFingerprint is what an approval of srv's card with the option
// optionID records: the fingerprint of srv as that choice starts it, so
// the choice is remembered and a command approved confined never gets
// the network from the same approval.
func launchFingerprint(srv config.Server, optionID string) string {
	return trust.ServerFingerprint(trust.ChoiceOfOption(optionID).Apply(srv))
}

// configuredServer is the config entry of the server named name.
func (c *Core) configuredServer(name string) (config.Server, bool) {
	if c.reg != nil {
		if srv, ok := c.reg.Server(name); ok {
			return srv, true
		}
	}
	for _, srv := range c.Config().MCP.Servers {
		if srv.Name == name {
			return srv, true
		}
	}
	return config.Server{}, false
}

// RevokeServer forgets launch consent (one server, or all when name is "")
// and returns the names whose consent it forgot: none for a configured server
// that had no approval. A name neither configured nor approved is an error
// naming the workspace servers, so a misspelt revoke never looks like it
// worked while the real server stays trusted. It never kills a running
// server.
func (c *Core) RevokeServer(name string) ([]string, error) {
	if c.store == nil {
		return nil, errors.New("no trust store: nothing to revoke")
	}
	if name != "" {
		return c.revokeOne(name)
	}
	roots := map[string]bool{c.root: true}
	if c.reg != nil {
		for _, s := range c.reg.Servers() {
			if srv, ok := c.reg.Server(s.Name); ok && srv.Origin == config.Workspace && srv.WorkspaceRoot != "" {
				roots[srv.WorkspaceRoot] = true
			}
		}
	}
	revoked := []string{}
	for root := range roots {
		names, err := c.store.RevokeAll(root)
		if err != nil {
			return revoked, err
		}
		revoked = append(revoked, names...)
	}
	sort.Strings(revoked)
	return revoked, nil
}

// revokeOne forgets one server's launch consent. A name no longer
// configured may still be revoked when the workspace holds its approval
// (consent outlives a removed config entry and would apply again if it came
// back with the same command).
func (c *Core) revokeOne(name string) ([]string, error) {
	root, configured := c.root, false
	if c.reg != nil {
		if srv, ok := c.reg.Server(name); ok {
			configured = true
			if srv.WorkspaceRoot != "" {
				root = srv.WorkspaceRoot
			}
		}
	}
	approvals, err := c.store.Approvals(root)
	if err != nil {
		return nil, err
	}
	if _, approved := approvals[name]; !approved {
		if !configured {
			return nil, fmt.Errorf("no server %q is configured or approved in this workspace; workspace servers: %s", name, c.workspaceServerNames())
		}
		return []string{}, nil
	}
	if err := c.store.Revoke(root, name); err != nil {
		return nil, err
	}
	return []string{name}, nil
}

// workspaceServerNames lists the configured workspace servers for an error
// message, sorted, or says there are none.
func (c *Core) workspaceServerNames() string {
	var names []string
	if c.reg != nil {
		for _, s := range c.reg.Servers() {
			if s.Origin == config.Workspace {
				names = append(names, s.Name)
			}
		}
	}
	if len(names) == 0 {
		return "(none)"
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func (c *Core) serverState(name string) mcp.State {
	for _, s := range c.reg.Servers() {
		if s.Name == name {
			return s.State
		}
	}
	return ""
}

// envPairs are a server's env entries as written, sorted by key.
func envPairs(env map[string]string) [][2]string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([][2]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, [2]string{k, env[k]})
	}
	return out
}
