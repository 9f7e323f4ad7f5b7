package server

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/agentls/agentls/mcp"
)

func TestMain(m *testing.M) {
	mcp.SupervisorHook() // these tests start real MCP servers
	goleak.VerifyTestMain(m)
}
