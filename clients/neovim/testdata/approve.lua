-- The user leaves the approval picker unanswered (0.10+: the request waits in
-- a coroutine, the editor stays usable), then answers with :AgentApprove,
-- which lists the waiting approvals (agent/approvals) and resolves the
-- oldest (agent/resolveApproval). The edit lands and the statusline clears.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local bufnr = vim.api.nvim_get_current_buf()
  local original = table.concat(lib.lines(bufnr), "\n")
  vim.notify = function() end
  R.asked = 0
  vim.ui.select = function(items, opts, on_choice)
    R.asked = R.asked + 1
    if R.asked == 1 then
      return -- ignored: never answered
    end
    R.second_prompt = opts.prompt
    for _, o in ipairs(items) do
      if o.optionId == "allow_once" then
        return on_choice(o)
      end
    end
    on_choice(nil)
  end
  lib.wait_attached(bufnr)

  local result
  agentls.run({ prompt = "make it a greeting", bufnr = bufnr, line1 = 1, line2 = 1, on_result = function(res, err)
    result = res or { error = err and err.message }
  end })
  lib.wait(30000, function()
    return R.asked == 1
  end, "the approval prompt")
  R.statusline_waiting = agentls.statusline()
  vim.cmd("AgentApprove")
  lib.wait(30000, function()
    return result ~= nil
  end, "the agent/run result after :AgentApprove")
  R.result = result
  R.changed = table.concat(lib.lines(bufnr), "\n") ~= original
  R.lines = lib.lines(bufnr)
  lib.wait(5000, function()
    return agentls.statusline() == ""
  end, function()
    return "the statusline to go idle (it says " .. agentls.statusline() .. ")"
  end)
end)
