-- :AgentCancel stops a task whose model stream hangs: the task ends with
-- stopReason "cancelled" and the statusline goes idle.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local lsp = require("agentls.lsp")
  local bufnr = vim.api.nvim_get_current_buf()
  vim.notify = function() end
  lib.wait(20000, function()
    local c = lsp.client(bufnr)
    return c ~= nil and c.server_capabilities ~= nil and vim.lsp.buf_is_attached(bufnr, c.id)
  end, "setup{} to attach agentls to the buffer")

  local result
  agentls.run({ prompt = "take your time", bufnr = bufnr, on_result = function(res, err)
    result = res or { error = err and err.message }
  end })
  -- The model has started streaming: its first delta ("Let...") is in the transcript.
  lib.wait(30000, function()
    local b = agentls.transcript_buffer()
    return b ~= nil and table.concat(lib.lines(b), "\n"):find("\n\nLet", 1, true) ~= nil
  end, "the streamed text before the hang")
  R.statusline_running = agentls.statusline()
  vim.cmd("AgentCancel")
  lib.wait(30000, function()
    return result ~= nil
  end, "the agent/run result after :AgentCancel")
  R.result = result
  lib.wait(5000, function()
    return agentls.statusline() == ""
  end, "the statusline to go idle")
end)
