package server

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Hook() // the launcher of confined (workspace-tier) MCP servers
	proc.Hook()    // these tests start real MCP servers
	goleak.VerifyTestMain(m)
}
