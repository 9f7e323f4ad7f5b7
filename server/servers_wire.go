package server

import (
	"context"

	"github.com/agentls/agentls/wire"
)

// mcpServers is agent/mcp/servers: the agent's server list, whose rows
// are wire.Server as docs/protocol.md gives Server (every field present,
// empty or not; secrets in a command line redacted by the registry).
func (s *Server) mcpServers(context.Context, wire.NoParams) (wire.ServersResult, error) {
	core, err := s.ensureCore()
	if err != nil {
		return wire.ServersResult{}, err
	}
	return wire.ServersResult{Servers: core.ServerList()}, nil
}
