-- The plugin with a real MCP server that asks a question (the fault
-- server's ask tool): the card comes through vim.ui.select, the user picks
-- Submit, then answers the form's fields (vim.ui.input for the name,
-- vim.ui.select for the colour).
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local bufnr = vim.api.nvim_get_current_buf()
  R.prompts = {}
  vim.ui.select = function(items, opts, on_choice)
    table.insert(R.prompts, opts.prompt)
    for _, it in ipairs(items) do
      if it.optionId == "accept" or it.value == "g" then
        return on_choice(it)
      end
    end
    on_choice(nil)
  end
  vim.ui.input = function(opts, on_confirm)
    table.insert(R.prompts, opts.prompt)
    on_confirm("Ada")
  end
  lib.wait_attached(bufnr)
  local result
  agentls.run({ prompt = "ask me", bufnr = bufnr, on_result = function(res, err)
    result = res or { error = err and err.message }
  end })
  lib.wait(45000, function()
    return result ~= nil
  end, "the agent/run result")
  R.result = result
end)
