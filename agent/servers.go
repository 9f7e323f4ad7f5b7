package agent

import (
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// ToolInfo is what the call policy knows of an MCP tool. The agent's call
// gate and the server list both go through it.
func ToolInfo(t mcp.Tool) trust.ToolInfo { return tools.ToolInfo(t) }

// ServerRows joins the registry's server list with the policy decision for
// each tool. It is the only place the policy column is filled, and it uses
// the same Policy.ClassifyCall the agent uses to decide a call.
func ServerRows(servers []mcp.ServerInfo, pol *trust.Policy) []wire.Server {
	pol = pol.Snapshot() // one read of the trust store for the whole list
	rows := make([]wire.Server, 0, len(servers))
	for _, s := range servers {
		row := wire.Server{Name: s.Name, Origin: s.Origin, State: s.State,
			Command: listOrEmpty(s.Command), EnvKeys: listOrEmpty(s.EnvKeys), Cwd: s.Cwd, Sandbox: s.Sandbox,
			URL: s.URL, HeaderNames: s.HeaderNames, Transport: s.Transport, Revision: s.Revision, Prompts: s.Prompts,
			Error: s.Error, StderrTail: s.StderrTail, Warnings: s.Warnings, SchemaTokens: s.SchemaTokens,
			Tools: make([]wire.ServerTool, 0, len(s.Tools))}
		for _, t := range s.Tools {
			d := pol.ClassifyCall(ToolInfo(t))
			row.Tools = append(row.Tools, wire.ServerTool{Name: t.Name, Server: t.Server, ServerTool: t.ServerTool,
				Description: t.Description, InputSchema: t.InputSchema, Annotations: wireAnnotations(t.Annotations),
				SchemaTokens: t.SchemaTokens, Policy: d.Action, PolicyReason: d.Reason})
		}
		rows = append(rows, row)
	}
	return rows
}

// listOrEmpty is s, or [] for none: the list's command and envKeys are never null.
func listOrEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// wireAnnotations are a tool's hints as the list shows them ({} for none).
func wireAnnotations(a *mcp.Annotations) wire.Annotations {
	if a == nil {
		return wire.Annotations{}
	}
	return wire.Annotations{Title: a.Title, ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint,
		IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint}
}

// LaunchGate is the registry's G1 gate over the trust store: user-tier
// servers start; a workspace-tier server starts only when its current
// fingerprint is approved. A store error or no store holds it (fail closed:
// a repo's process must never start because the store could not be read).
func LaunchGate(store *trust.Store) mcp.LaunchGate {
	return func(s config.Server) (mcp.State, config.Server) {
		if s.Origin == config.User {
			return "", s
		}
		if store == nil {
			return mcp.NeedsApproval, s
		}
		// The approval also says how it starts: the confinement chosen on
		// its card (trust.LaunchChoice), found from the stored fingerprint.
		st, run, err := store.ServerLaunch(s)
		if err != nil {
			return mcp.NeedsApproval, s
		}
		switch st {
		case trust.Trusted:
			return "", run
		case trust.ApprovalStale:
			return mcp.ApprovalStale, s
		}
		return mcp.NeedsApproval, s
	}
}

// RegistryOptions are the registry options every front end builds from cfg:
// the config's limits, the built-in tool names reserved (so the names a list
// shows are the names the model gets) and workspace servers gated on store.
// The editor server and the command line share it so the two cannot drift.
func RegistryOptions(cfg *config.Config, store *trust.Store) mcp.Options {
	return mcp.Options{
		ResultMaxBytes:      cfg.MCP.ResultMaxBytes,
		MaxImageBytes:       cfg.MCP.MaxImageBytes,
		DescriptionMaxChars: cfg.MCP.DescriptionMaxChars,
		MaxToolsPerServer:   cfg.MCP.MaxToolsPerServer,
		Reserved:            tools.BuiltinNames(),
		Gate:                LaunchGate(store),
		LogLevel:            cfg.MCP.LogLevel,
	}
}
