package agent

import (
	"testing"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

// TestServerRowsAllowNamesItsServer pins that the glue hands the tool's
// server to the policy: a repo's server "github_" must not inherit the
// user's "github__*" = "allow" through its tool "github___list".
func TestServerRowsAllowNamesItsServer(t *testing.T) {
	pol := &trust.Policy{Rules: []config.PolicyRule{{Pattern: "github__*", Action: "allow", Origin: config.User}}}
	servers := []mcp.ServerInfo{
		{Name: "github", Origin: config.User, Tools: []mcp.Tool{{Name: "github__list", Server: "github", ServerTool: "list"}}},
		{Name: "github_", Origin: config.Workspace, Tools: []mcp.Tool{{Name: "github___list", Server: "github_", ServerTool: "list"}}},
	}
	rows := ServerRows(servers, pol)
	if got := rows[0].Tools[0].Policy; got != trust.Allow {
		t.Errorf("the user's own github__list: %s (%s), want allow", got, rows[0].Tools[0].PolicyReason)
	}
	if got := rows[1].Tools[0].Policy; got != trust.Ask {
		t.Errorf("the repo's github___list: %s (%s), want ask", got, rows[1].Tools[0].PolicyReason)
	}
}
