-- A repository declares an MCP server in .agentls/config.toml: agentls asks
-- on open and the user declines; :AgentMcp shows it waiting for approval;
-- `t` on its line asks agent/mcp/trust, the launch card arrives through
-- vim.ui.select with the literal command, the user trusts it, and the float
-- shows it connected.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local lsp = require("agentls.lsp")
  local bufnr = vim.api.nvim_get_current_buf()
  R.notify = {}
  vim.notify = function(msg)
    table.insert(R.notify, tostring(msg))
  end
  R.cards = {}
  vim.ui.select = function(items, opts, on_choice)
    local names = {}
    for _, o in ipairs(items) do
      table.insert(names, o.name)
    end
    table.insert(R.cards, { prompt = opts.prompt, options = names, kind = opts.agentls_approval.kind })
    -- The card that comes on open is declined; the one asked for from the
    -- float is accepted.
    local want = #R.cards == 1 and "reject_once" or "allow_once"
    for _, o in ipairs(items) do
      if o.optionId == want then
        return on_choice(o)
      end
    end
    on_choice(nil)
  end
  lib.wait_attached(bufnr)

  -- agentls asks about the repository's server as soon as it starts.
  lib.wait(20000, function()
    return #R.cards == 1
  end, "the launch card on open")
  local client = lsp.client(bufnr)
  local state
  lib.wait(10000, function()
    local s = lib.first_server(client, bufnr)
    state = s and s.state
    return state == "needs_approval"
  end, function()
    return "the declined server to stay needs_approval (it is " .. tostring(state) .. ")"
  end)

  vim.cmd("AgentMcp")
  local win
  lib.wait(10000, function()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= "" then
        win = w
        return true
      end
    end
    return false
  end, ":AgentMcp's floating window")
  local fbuf = vim.api.nvim_win_get_buf(win)
  R.before = lib.lines(fbuf)

  -- The user moves to the server's line and presses t.
  vim.api.nvim_win_set_cursor(win, { 2, 0 })
  vim.cmd("normal t")
  lib.wait(40000, function()
    return table.concat(lib.lines(fbuf), "\n"):find("[connected]", 1, true) ~= nil
  end, function()
    return "the float to show the server connected; it shows:\n" .. table.concat(lib.lines(fbuf), "\n")
  end)
  R.after = lib.lines(fbuf)
end)
