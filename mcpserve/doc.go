// Package mcpserve is agentls as an MCP server: it serves the editor agentls
// sits in (its open documents and unsaved text, selection, diagnostics,
// showDocument, edits through its review UI, commands, agentls's sessions)
// to an outside agent, an MCP client agentls did not start (Claude Code,
// the Hermes agent, any MCP client), on stdio and on Streamable HTTP bound
// to loopback behind a per-session bearer token (`agentls mcp serve`, and
// the listener a running `agentls` LSP session opens).
//
// Every call that touches a file or runs anything goes through the agent
// core (agent.Core.CallTool): the same gate, policy, mode, saved rules,
// hooks and approval card as the same call from agentls's own agent, with
// the card naming the client and its connection. This package decides
// nothing itself: it only lists what the editor can offer (a tool the
// editor cannot offer is not listed) and translates between MCP and the
// core. It never logs or prints the token, and never answers a request
// without it.
package mcpserve
