package server

import (
	"testing"

	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"
)

func TestMain(m *testing.M) {
	sandbox.Hook() // the launcher of confined (workspace-tier) MCP servers
	proc.Hook()    // these tests start real MCP servers
	testenv.Main(m)
}
