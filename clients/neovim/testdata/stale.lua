-- The user types a line into the buffer while the edit's approval picker is
-- open, then allows the edit. The line must survive, and the agent's
-- replacement land beside it.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local bufnr = vim.api.nvim_get_current_buf()
  vim.notify = function() end
  R.asked = 0
  vim.ui.select = function(items, _, on_choice)
    R.asked = R.asked + 1
    vim.api.nvim_buf_set_lines(bufnr, 0, 0, false, { "typed while the card was open" })
    for _, o in ipairs(items) do
      if o.optionId == "allow_once" then
        return on_choice(o)
      end
    end
    on_choice(nil)
  end
  lib.wait_attached(bufnr)

  local result
  agentls.run({ prompt = "shout hello", bufnr = bufnr, line1 = 1, line2 = 1, on_result = function(res, err)
    result = res or { error = err and err.message }
  end })
  lib.wait(30000, function()
    return result ~= nil
  end, "the agent/run result")
  R.result = result
  R.lines = lib.lines(bufnr)
end)
