// Package server is agentls's LSP front: it speaks docs/protocol.md over one
// JSON-RPC connection and translates between the protocol and the packages
// below it (agent, mcp, trust, config). It owns the connection's concurrency
// (one goroutine per request, its own $/cancelRequest), documents and their
// unsaved text, the three approval paths, progress, code actions and
// commands. It holds no business logic: it never decides whether something
// may run, it only asks the user and passes the answer down.
package server
