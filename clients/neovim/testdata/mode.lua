-- The user allows a command "always" on its card (the rule is saved),
-- switches the session to plan mode with :AgentMode plan (the statusline
-- says so), runs a task whose model tries to write (refused without a
-- card), then forgets the rule with :AgentRules.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local bufnr = vim.api.nvim_get_current_buf()
  vim.notify = function() end
  R.cards = {}
  R.pickers = {}
  vim.ui.select = function(items, opts, on_choice)
    if opts.agentls_approval then
      table.insert(R.cards, { kind = opts.agentls_approval.kind, rule = opts.agentls_approval.rule })
      for _, o in ipairs(items) do
        if o.optionId == "allow_always" then
          return on_choice(o)
        end
      end
      return on_choice(nil)
    end
    table.insert(R.pickers, opts.prompt)
    on_choice(items[1])
  end
  lib.wait_attached(bufnr)

  local function run(prompt)
    return lib.run(bufnr, prompt)
  end
  R.first = run("run the check")
  R.statusline_ask = agentls.statusline()
  R.usage_first = agentls.usage()

  vim.cmd("AgentMode plan")
  lib.wait(10000, function()
    return require("agentls.status").mode() == "plan"
  end, "agent/setMode's answer")
  R.statusline_plan = agentls.statusline()

  R.second = run("rewrite the greeting")
  R.statusline_after = agentls.statusline()
  R.usage_after = agentls.usage()
  R.lines = lib.lines(bufnr)

  local revoked
  agentls.rules(bufnr, function(res)
    revoked = res or {}
  end)
  lib.wait(10000, function()
    return revoked ~= nil
  end, ":AgentRules to forget the rule")
  R.revoked = revoked
end)
