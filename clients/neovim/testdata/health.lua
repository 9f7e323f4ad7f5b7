-- :checkhealth agentls with setup{} attached to the file: it finds the
-- server binary, its version and the running client.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local bufnr = vim.api.nvim_get_current_buf()
  lib.wait_attached(bufnr)
  vim.cmd("checkhealth agentls")
  R.report = lib.lines(0)
end)
