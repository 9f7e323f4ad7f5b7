-- A remote server behind OAuth fails to connect (no token); in :AgentMcp,
-- `l` on its line runs agentls.mcp.login: the authorization URL arrives
-- (window/showDocument on 0.10, a message with the URL on 0.7.2), is handed
-- to the test's browser (a file it watches), and the login's end is shown.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local lsp = require("agentls.lsp")
  local bufnr = vim.api.nvim_get_current_buf()
  local urlfile = lib.env("AGENTLS_E2E_URLFILE")
  R.messages = {}
  local function browse(url, via)
    R.opened, R.via = url, via
    local f = assert(io.open(urlfile, "w"))
    f:write(url)
    f:close()
  end
  -- 0.10 opens an external showDocument with vim.ui.open (a process it
  -- waits for).
  if vim.ui.open then
    vim.ui.open = function(url)
      browse(url, "vim.ui.open")
      return { wait = function() return { code = 0 } end }, nil
    end
  end
  vim.lsp.handlers["window/showMessage"] = function(_, result)
    table.insert(R.messages, result.message)
    local url = result.message:match("open this URL in your browser: (%S+)")
    if url then
      browse(url, "message")
    end
    return vim.NIL
  end
  lib.wait_attached(bufnr)
  local client = lsp.client(bufnr)
  local state
  lib.wait(30000, function()
    local s = lib.first_server(client, bufnr)
    state = s and s.state
    return state == "failed"
  end, function()
    return "the server to fail for want of a token (it is " .. tostring(state) .. ")"
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
  R.help = lib.lines(vim.api.nvim_win_get_buf(win))
  vim.api.nvim_win_set_cursor(win, { 1, 0 })
  vim.cmd("normal l")
  lib.wait(60000, function()
    for _, m in ipairs(R.messages) do
      if m:find("logged in", 1, true) or m:find("login failed", 1, true) then
        return true
      end
    end
    return false
  end, function()
    return "the login's end; messages: " .. vim.inspect(R.messages)
  end)
end)
