-- A call a real 2026-07-28 server runs as a task, in the plugin: wait for
-- the server (mcp-v2-server.mjs, "v2" in the user config) to connect, run
-- a task whose model calls v2__long held on the file HOLD; once the
-- conversation shows the call running with the task's status, keep it and
-- the statusline, create HOLD, and keep the conversation at the end. Then
-- a second one held on a file never made, cancelled with :AgentCancel
-- while it runs.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local lsp = require("agentls.lsp")
  local bufnr = vim.api.nvim_get_current_buf()
  lib.wait_attached(bufnr)
  local client = lsp.client(bufnr)
  lib.wait_connected(client, bufnr, "the v2 server")
  local function conv()
    local b = agentls.transcript_buffer()
    return b and table.concat(lib.lines(b), "\n") or ""
  end
  local function run(prompt)
    local box = {}
    agentls.run({ prompt = prompt, bufnr = bufnr, document = false, on_result = function(res, err)
      box.result = res or { error = err and err.message }
    end })
    return box
  end

  local first = run("run it")
  lib.wait(30000, function()
    return conv():find("(running: waiting for ", 1, true) ~= nil
  end, function()
    return "the call running with the task's status:\n" .. conv()
  end)
  R.running = conv()
  R.statusline_running = agentls.statusline()
  local f = assert(io.open(lib.env("HOLD"), "w"))
  f:close()
  lib.wait(30000, function()
    return first.result ~= nil
  end, "the first task's result")
  R.first = first.result
  R.ended = conv()

  local second = run("run a long one")
  lib.wait(30000, function()
    local _, n = conv():gsub("%(running: waiting for ", "")
    return n > 0 and conv():find("run a long one", 1, true) ~= nil
  end, function()
    return "the second call running:\n" .. conv()
  end)
  vim.cmd("AgentCancel")
  lib.wait(30000, function()
    return second.result ~= nil
  end, "the second task's result after :AgentCancel")
  R.second = second.result
end)
