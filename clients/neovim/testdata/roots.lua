-- setup{} attaches one client per workspace root: two files under root a
-- share a client, a file under root b gets another, and a buffer without a
-- file gets none. The files' paths come from AGENTLS_E2E_FILES (":"-separated).
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local lsp = require("agentls.lsp")
  R.buffers = {}
  local bufs = {}
  for _, f in ipairs(vim.split(lib.env("AGENTLS_E2E_FILES"), ":", { plain = true })) do
    vim.cmd("edit " .. vim.fn.fnameescape(f))
    table.insert(bufs, vim.api.nvim_get_current_buf())
  end
  vim.cmd("enew")
  local scratch = vim.api.nvim_get_current_buf()

  lib.wait(20000, function()
    for _, b in ipairs(bufs) do
      local c = lsp.clients(b)[1]
      if not c or not vim.lsp.buf_is_attached(b, c.id) then
        return false
      end
    end
    return true
  end, "every file buffer to have an agentls client")
  for _, b in ipairs(bufs) do
    local c = lsp.clients(b)[1]
    table.insert(R.buffers, { client = c.id, root = c.config.root_dir })
  end
  local n = 0
  for _, c in ipairs(lsp.clients()) do
    if vim.lsp.buf_is_attached(scratch, c.id) then
      n = n + 1
    end
  end
  R.scratch_clients = n
  R.clients = #lsp.clients()
end)
