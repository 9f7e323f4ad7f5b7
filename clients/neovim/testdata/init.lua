-- A minimal init for the plugin test: the plugin on 'runtimepath' the way a
-- plugin manager puts it, and setup{} before any buffer loads (as in a
-- user's init.lua), pointed at the agentls binary under test.
vim.opt.runtimepath:prepend(os.getenv("AGENTLS_E2E_PLUGIN"))
vim.opt.swapfile = false
require("agentls").setup({ cmd = { os.getenv("AGENTLS_E2E_BIN"), "serve" } })
vim.o.statusline = "%f %{v:lua.require'agentls'.statusline()}"
