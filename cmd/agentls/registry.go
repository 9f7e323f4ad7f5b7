package main

import (
	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

// newRegistry is the registry the editor's server builds from cfg: the same
// limits, the agent's built-in tool names reserved (so listed names are the
// names the model gets), and workspace servers gated on the trust store.
func newRegistry(cfg *config.Config, store *trust.Store) *mcp.Registry {
	return mcp.NewRegistry(cfg.MCP.Servers, agent.RegistryOptions(cfg, store))
}
