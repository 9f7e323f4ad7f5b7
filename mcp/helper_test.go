package mcp

const helperEnv = "AGENTLS_MCP_TEST_HELPER"

func runHelper(spec string) int { return 0 }
