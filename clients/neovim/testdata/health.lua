-- :checkhealth agentls with setup{} attached to the file: it finds the
-- server binary, its version and the running client.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local lsp = require("agentls.lsp")
  local bufnr = vim.api.nvim_get_current_buf()
  lib.wait(20000, function()
    local c = lsp.client(bufnr)
    return c ~= nil and c.server_capabilities ~= nil and vim.lsp.buf_is_attached(bufnr, c.id)
  end, "setup{} to attach agentls to the buffer")
  vim.cmd("checkhealth agentls")
  R.report = lib.lines(0)
end)
