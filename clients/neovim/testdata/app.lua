-- A tool that offers an MCP App, in the plugin (which cannot show one):
-- wait for the real App server (server-basic-vanillajs, in the user
-- config, its get-time allowed) to connect, run a task whose model calls
-- get-time, and keep the conversation buffer's lines.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local lsp = require("agentls.lsp")
  local bufnr = vim.api.nvim_get_current_buf()
  lib.wait_attached(bufnr)
  local client = lsp.client(bufnr)
  lib.wait_connected(client, bufnr, "the App server")
  R.run = lib.run(bufnr, "what time is it")
  local function conv()
    local b = agentls.transcript_buffer()
    return b and table.concat(lib.lines(b), "\n") or ""
  end
  lib.wait(20000, function()
    return conv():find("--- end_turn", 1, true) ~= nil
  end, function()
    return "the task's end in the conversation:\n" .. conv()
  end)
  R.conversation = conv()
end)
