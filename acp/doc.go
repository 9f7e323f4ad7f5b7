// Package acp is agentls's Agent Client Protocol (ACP, version 1) front: an
// agent on stdio, JSON-RPC 2.0 as newline-delimited JSON, for editors that
// start agents as subprocesses (Zed, JetBrains IDEs, Emacs agent-shell,
// Neovim's CodeCompanion and avante.nvim).
//
// It translates and nothing else: sessions, the tool loop, gates and the
// trust store are package agent's, opened through Options.Open exactly as
// the LSP front opens them. Gates become session/request_permission, the
// agent's events become session/update, edits go through fs/write_text_file
// when the editor offers it.
//
// It never decides anything about trust itself: of the mechanisms (trust,
// mcp, agent/tools) it uses only the display helpers and the Workspace
// contract internal/testenv's TestFrontsNeverDecideTrust lists; a question
// it cannot put to the editor is a denial.
package acp
