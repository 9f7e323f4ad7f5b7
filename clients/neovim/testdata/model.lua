-- A task on the default profile (the chat completions wire), then
-- :AgentModel picks the profile "claude" (the Messages wire) with the
-- picker, and the next task of the session goes there; :AgentModel with a
-- profile the config does not declare is refused.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local bufnr = vim.api.nvim_get_current_buf()
  R.notes = {}
  vim.notify = function(msg)
    table.insert(R.notes, msg)
  end
  R.pickers = {}
  vim.ui.select = function(items, opts, on_choice)
    local shown = {}
    for _, it in ipairs(items) do
      table.insert(shown, opts.format_item and opts.format_item(it) or it)
    end
    table.insert(R.pickers, { prompt = opts.prompt, items = shown })
    for _, it in ipairs(items) do
      if type(it) == "table" and it.profile == "claude" then
        return on_choice(it)
      end
    end
    on_choice(nil)
  end
  lib.wait_attached(bufnr)

  local function run(prompt)
    local result
    agentls.run({ prompt = prompt, bufnr = bufnr, document = false, on_result = function(res, err)
      result = res or { error = err and err.message }
    end })
    lib.wait(30000, function()
      return result ~= nil
    end, "the agent/run result of " .. prompt)
    return result
  end
  R.first = run("what does greeting.txt say?")

  local switched
  agentls.set_model(nil, bufnr, function(res)
    switched = res
  end)
  lib.wait(10000, function()
    return switched ~= nil
  end, ":AgentModel's answer")
  R.switched = switched

  R.second = run("and what do you say?")

  local before = #R.notes
  vim.cmd("AgentModel collector")
  lib.wait(10000, function()
    return #R.notes > before
  end, "the refusal of an unknown profile")
  R.refusal = R.notes[#R.notes]
end)
