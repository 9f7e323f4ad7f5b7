-- The plugin with a real MCP server (the npm reference server "everything",
-- configured in the user config): wait for it to connect, show :AgentMcp,
-- then run a task whose tool call to everything__echo asks through
-- vim.ui.select with `server · tool` and the arguments; the user allows it
-- once (answering at once, from inside the picker).
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local lsp = require("agentls.lsp")
  local bufnr = vim.api.nvim_get_current_buf()
  R.notify = {}
  vim.notify = function(msg)
    table.insert(R.notify, tostring(msg))
  end
  R.approvals = {}
  vim.ui.select = function(items, opts, on_choice)
    table.insert(R.approvals, { kind = opts.kind, prompt = opts.prompt })
    for _, o in ipairs(items) do
      if o.optionId == "allow_once" then
        return on_choice(o)
      end
    end
    on_choice(nil)
  end

  lib.wait_attached(bufnr)
  local client = lsp.client(bufnr)

  -- Poll the server list until the server has left "connecting".
  local state, count
  lib.wait(40000, function()
    local s
    s, count = lib.first_server(client, bufnr)
    state = s and s.state
    if count == 0 then
      lib.fail("agent/mcp/servers lists no server; the config declares one")
    end
    if state == "connecting" or state == nil then
      vim.wait(200)
      return false
    end
    return true
  end, function()
    return "the MCP server to connect (last state: " .. tostring(state) .. ")"
  end)
  R.state = state

  vim.cmd("AgentMcp")
  lib.wait(10000, function()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= "" then
        R.mcp = lib.lines(vim.api.nvim_win_get_buf(w))
        return true
      end
    end
    return false
  end, ":AgentMcp's floating window")
  vim.cmd("close")

  local result
  agentls.run({ prompt = "echo hi", bufnr = bufnr, on_result = function(res, err)
    result = res or { error = err and err.message }
  end })
  lib.wait(45000, function()
    return result ~= nil
  end, "the agent/run result")
  R.result = result
end)
