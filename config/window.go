package config

// DefaultToolBudgetShare is the share of the context window the MCP tool
// definitions of one request may take before agentls offers a tool search
// instead of every tool ([mcp] tool_budget_tokens overrides). The window
// itself, the tool limit and vision support are the provider's
// (agent/model/providers).
const DefaultToolBudgetShare = 0.2

// ToolBudgetFor is the tokens of MCP tool definitions one request may
// carry before agentls switches to tool search: [mcp] tool_budget_tokens
// when set, else DefaultToolBudgetShare of the window.
func ToolBudgetFor(configured, window int) int {
	if configured > 0 {
		return configured
	}
	return int(float64(window) * DefaultToolBudgetShare)
}
