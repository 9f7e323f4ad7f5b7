// Package neovim holds the end-to-end tests of the Neovim client of agentls:
// the Lua plugin in this folder (lua/agentls, plugin/, doc/) and a plain
// vim.lsp config without it, each driven in real headless Neovim 0.7.2 and
// 0.10 against the real agentls binary and a fake model server. It has no Go
// code of its own and must never stand in for the editor or the server.
package neovim
