-- :AgentPrompt with a real MCP server (server-everything, in the user
-- config): wait for it to connect, run :AgentPrompt, pick args-prompt in
-- vim.ui.select, answer its arguments in vim.ui.input (city, then leave
-- the optional state empty), allow the prompts/get card, and wait for the
-- task's end; then run `:AgentPrompt everything.simple-prompt` directly.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local lsp = require("agentls.lsp")
  local bufnr = vim.api.nvim_get_current_buf()
  R.notify = {}
  vim.notify = function(msg)
    table.insert(R.notify, tostring(msg))
  end
  R.picked, R.approvals, R.inputs = {}, {}, {}
  vim.ui.select = function(items, opts, on_choice)
    if opts.kind == "agentls.prompt" then
      local labels = {}
      for _, it in ipairs(items) do
        table.insert(labels, opts.format_item(it))
      end
      R.picked = labels
      for _, it in ipairs(items) do
        if it.prompt.name == "args-prompt" then
          return on_choice(it)
        end
      end
      return on_choice(nil)
    end
    table.insert(R.approvals, { kind = opts.kind, prompt = opts.prompt })
    for _, o in ipairs(items) do
      if o.optionId == "allow_once" then
        return on_choice(o)
      end
    end
    on_choice(nil)
  end
  vim.ui.input = function(opts, on_confirm)
    table.insert(R.inputs, opts.prompt)
    on_confirm(#R.inputs == 1 and lib.env("CITY") or "")
  end

  lib.wait_attached(bufnr)
  local client = lsp.client(bufnr)
  lib.wait_connected(client, bufnr, "the MCP server")

  -- A task has ended once agent/tasks no longer lists it (the task id is
  -- in the message :AgentPrompt notifies).
  local function ended(n)
    local id
    local count = 0
    for _, m in ipairs(R.notify) do
      local t = m:match("^agentls: running the prompt .* %(task (t%d+)%)$")
      if t then
        count = count + 1
        if count == n then
          id = t
        end
      end
    end
    if not id then
      return false
    end
    local done, listed = false, true
    lsp.request(client, "agent/tasks", {}, function(_, res)
      listed = false
      for _, t in ipairs(res and res.tasks or {}) do
        if t.taskId == id then
          listed = true
        end
      end
      done = true
    end, bufnr)
    vim.wait(5000, function()
      return done
    end, 10)
    if listed then
      vim.wait(100)
    end
    return not listed
  end
  vim.cmd("AgentPrompt")
  lib.wait(45000, function()
    return ended(1)
  end, function()
    return "the args-prompt task to end; notified: " .. vim.inspect(R.notify)
  end)
  vim.cmd("AgentPrompt everything.simple-prompt")
  lib.wait(45000, function()
    return ended(2)
  end, function()
    return "the simple-prompt task to end; notified: " .. vim.inspect(R.notify)
  end)
end)
