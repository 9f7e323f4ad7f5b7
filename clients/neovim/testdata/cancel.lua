-- :AgentRun with no prompt asks for one; :AgentCancel stops the task while
-- its model stream hangs: it ends with stopReason "cancelled" and the
-- statusline goes idle.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local bufnr = vim.api.nvim_get_current_buf()
  R.notify = {}
  vim.notify = function(msg)
    table.insert(R.notify, tostring(msg))
  end
  -- :AgentRun with neither prompt nor range asks for one; the user types it.
  vim.ui.input = function(opts, on_confirm)
    R.input_prompt = opts.prompt
    on_confirm("take your time")
  end
  lib.wait_attached(bufnr)

  vim.cmd("AgentRun")
  -- The model has started streaming: its first delta ("Let...") is in the transcript.
  lib.wait(30000, function()
    local b = agentls.transcript_buffer()
    return b ~= nil and table.concat(lib.lines(b), "\n"):find("\n\nLet", 1, true) ~= nil
  end, "the streamed text before the hang")
  R.statusline_running = agentls.statusline()
  vim.cmd("AgentCancel")
  lib.wait(30000, function()
    for _, m in ipairs(R.notify) do
      if m:find("agentls: ", 1, true) == 1 then
        R.result = m
        return true
      end
    end
    return false
  end, "the agent/run result after :AgentCancel")
  lib.wait(5000, function()
    return agentls.statusline() == ""
  end, "the statusline to go idle")
end)
