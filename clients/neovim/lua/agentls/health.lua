-- :checkhealth agentls: is the server there, which version, which clients
-- run for which roots, and what the approval prompt can do on this Neovim.
local M = {}

-- report is vim.health on 0.9+, the health module's report_* on 0.7/0.8.
local function reporter()
  if vim.health and vim.health.start then
    return vim.health
  end
  local h = require("health")
  return { start = h.report_start, ok = h.report_ok, info = h.report_info, warn = h.report_warn, error = h.report_error }
end

function M.check()
  local h = reporter()
  local agentls = require("agentls")
  local lsp = require("agentls.lsp")

  h.start("agentls: Neovim")
  local v = vim.version()
  local version = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  if vim.fn.has("nvim-0.7") == 0 then
    h.error("Neovim " .. version .. " is too old: agentls needs 0.7 or later")
  elseif type(vim.lsp.start) == "function" then
    h.ok("Neovim " .. version .. ": clients start with vim.lsp.start, one per root; approval pickers may answer later")
  else
    h.ok("Neovim " .. version .. ": clients start with vim.lsp.start_client + buf_attach_client, one per root")
    h.info("on 0.7 an approval is answered from inside the request: keep a vim.ui.select that answers at once (the built-in one does)")
  end

  h.start("agentls: server")
  local cmd = agentls.config.cmd or {}
  local prog = cmd[1]
  if type(prog) ~= "string" or vim.fn.executable(prog) == 0 then
    h.error(string.format("%q is not an executable on PATH", tostring(prog)),
      { "go install github.com/agentls/agentls/cmd/agentls@latest", "or set cmd in require('agentls').setup{}" })
  else
    local out = vim.fn.system({ prog, "version" })
    if vim.v.shell_error == 0 then
      h.ok(vim.fn.exepath(prog) .. ": " .. vim.trim(out))
    else
      h.error(prog .. " version failed: " .. vim.trim(out))
    end
  end

  h.start("agentls: clients")
  local clients = lsp.clients()
  if #clients == 0 then
    h.warn("no agentls client is running", { "call require('agentls').setup{} in your init.lua, then open a file" })
  end
  for _, c in ipairs(clients) do
    local caps = c.server_capabilities or {}
    local proto = caps.experimental and caps.experimental.agentls and caps.experimental.agentls.version
    local line = string.format("client %d, root %s", c.id, tostring(c.config.root_dir))
    if proto == 1 then
      h.ok(line .. ", protocol version 1")
    else
      h.warn(line .. ": the server does not announce agentls protocol version 1 (got " .. tostring(proto) .. ")")
    end
  end
  local last = require("agentls.approval").last_wait
  if last then
    h.info("the last approval was awaited by: " .. last)
  end
end

return M
