-- agentls.mcp: :AgentMcp, the server list of docs/protocol.md section 2
-- (agent/mcp/servers) in a floating window: each server's state, its literal
-- command line, its tools and the policy each call would get; keys in the
-- float trust (agent/mcp/trust: the launch card, then the start), restart,
-- revoke, and log in to (agentls.mcp.login: a remote server's OAuth page
-- opens in the browser) the server under the cursor.
local M = {}

local lsp = require("agentls.lsp")
local approval = require("agentls.approval")

local function str(v)
  if v == nil or v == vim.NIL then
    return ""
  end
  return tostring(v)
end

--- lines renders the server list as text, one block per server. The second
--- result maps each line number (1-based) to the server it describes.
function M.lines(servers)
  local out, owners = {}, {}
  if #servers == 0 then
    return { "No MCP servers configured.", "", "Add [mcp.servers.NAME] to ~/.config/agentls/config.toml." }, owners
  end
  for i, s in ipairs(servers) do
    if i > 1 then
      table.insert(out, "")
    end
    local first = #out + 1
    table.insert(out, string.format("%s  [%s]  (%s)", str(s.name), str(s.state), str(s.origin)))
    table.insert(out, "  $ " .. approval.argv(s.command))
    if str(s.revision) ~= "" then
      table.insert(out, "  MCP " .. str(s.revision) .. " over " .. str(s.transport))
    end
    if type(s.envKeys) == "table" and #s.envKeys > 0 then
      table.insert(out, "  env: " .. table.concat(s.envKeys, ", "))
    end
    if str(s.cwd) ~= "" then
      table.insert(out, "  cwd: " .. str(s.cwd))
    end
    if str(s.error) ~= "" then
      table.insert(out, "  error: " .. str(s.error):gsub("\n", " "))
    end
    if str(s.stderrTail) ~= "" and s.state ~= "connected" then
      for _, l in ipairs(vim.split(str(s.stderrTail), "\n", { plain = true })) do
        if l ~= "" then
          table.insert(out, "  stderr: " .. l)
        end
      end
    end
    local tools = type(s.tools) == "table" and s.tools or {}
    if s.schemaTokens and s.schemaTokens ~= vim.NIL then
      table.insert(out, string.format("  tools: %d (~%d schema tokens per turn)", #tools, s.schemaTokens))
    else
      table.insert(out, string.format("  tools: %d", #tools))
    end
    local width = 0
    for _, t in ipairs(tools) do
      width = math.max(width, #str(t.name))
    end
    for _, t in ipairs(tools) do
      local hints = {}
      if type(t.annotations) == "table" then
        if t.annotations.readOnlyHint == true then
          table.insert(hints, "read-only")
        end
        if t.annotations.destructiveHint == true then
          table.insert(hints, "destructive")
        end
      end
      local line = string.format("    %-" .. width .. "s  %-5s", str(t.name), str(t.policy))
      if #hints > 0 then
        line = line .. "  (" .. table.concat(hints, ", ") .. ")"
      end
      table.insert(out, (line:gsub("%s+$", "")))
    end
    for n = first, #out do
      owners[n] = str(s.name)
    end
  end
  return out, owners
end

--- help is the float's last line.
M.help = "t trust and start · r restart · x revoke launch approval · l log in (remote) · q close"

--- float shows lines in a centered floating window; q or <Esc> closes it.
function M.float(lines, title)
  local b = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.bo[b].modifiable = false
  vim.bo[b].bufhidden = "wipe"
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 2, math.max(20, vim.o.columns - 4))
  local height = math.min(#lines, math.max(3, vim.o.lines - 4))
  local opts = {
    relative = "editor",
    width = width,
    height = height,
    row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    style = "minimal",
    border = "rounded",
  }
  if vim.fn.has("nvim-0.9") == 1 then
    opts.title = title
  end
  local w = vim.api.nvim_open_win(b, true, opts)
  for _, key in ipairs({ "q", "<Esc>" }) do
    vim.api.nvim_buf_set_keymap(b, "n", key, "<cmd>close<cr>", { nowait = true, noremap = true, silent = true })
  end
  return w, b
end

local function request(client, bufnr, method, params, on_result)
  lsp.request(client, method, params, function(err, res)
    if err then
      vim.notify("agentls: " .. method .. ": " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    on_result(res)
  end, bufnr)
end

-- owners_by_buf maps a float's buffer to its line -> server map.
local owners_by_buf = {}

-- render puts the server list into the float's buffer.
local function render(b, servers, refresh)
  local lines, owners = M.lines(servers)
  table.insert(lines, "")
  table.insert(lines, M.help)
  vim.bo[b].modifiable = true
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.bo[b].modifiable = false
  owners_by_buf[b] = owners
  -- A server still connecting changes soon: look again while the float is up.
  for _, srv in ipairs(servers) do
    if srv.state == "connecting" and refresh then
      vim.defer_fn(refresh, 300)
      break
    end
  end
  return lines
end

--- show asks agent/mcp/servers and opens the float. on_done(win, buf) runs
--- once it is shown.
function M.show(bufnr, on_done)
  local client = lsp.client(bufnr)
  if not client then
    vim.notify("agentls: no agentls client is running", vim.log.levels.WARN)
    return
  end
  request(client, bufnr, "agent/mcp/servers", {}, function(res)
    local servers = res and res.servers or {}
    local lines = M.lines(servers)
    table.insert(lines, "")
    table.insert(lines, M.help)
    local w, b = M.float(lines, " agentls MCP servers ")
    local refresh
    refresh = function()
      if not vim.api.nvim_buf_is_valid(b) then
        return
      end
      request(client, bufnr, "agent/mcp/servers", {}, function(r)
        if vim.api.nvim_buf_is_valid(b) then
          render(b, r and r.servers or {}, refresh)
        end
      end)
    end
    render(b, servers, refresh)
    local function on_server(method, params_of)
      return function()
        local owners = owners_by_buf[b] or {}
        local name = owners[vim.api.nvim_win_get_cursor(0)[1]]
        if not name then
          vim.notify("agentls: put the cursor on a server", vim.log.levels.INFO)
          return
        end
        request(client, bufnr, method, params_of(name), function(r)
          local what = "done"
          if r and r.state then
            what = r.state
          elseif r and r.revoked then
            what = #r.revoked > 0 and ("revoked " .. table.concat(r.revoked, ", ")) or "nothing to revoke (it had no approval)"
          end
          vim.notify("agentls: " .. name .. ": " .. tostring(what), vim.log.levels.INFO)
          refresh()
        end)
      end
    end
    local keys = {
      t = on_server("agent/mcp/trust", function(n)
        return { server = n }
      end),
      r = on_server("agent/mcp/restart", function(n)
        return { server = n }
      end),
      x = on_server("agent/mcp/revoke", function(n)
        return { server = n }
      end),
      -- agentls answers at once; the page opens in the browser (or its URL
      -- is shown) and a message says how the login ended.
      l = on_server("workspace/executeCommand", function(n)
        return { command = "agentls.mcp.login", arguments = { n } }
      end),
    }
    vim.api.nvim_create_autocmd("BufWipeout", {
      buffer = b,
      once = true,
      callback = function()
        owners_by_buf[b] = nil
      end,
    })
    for key, fn in pairs(keys) do
      vim.api.nvim_buf_set_keymap(b, "n", key, "", { nowait = true, noremap = true, silent = true, callback = fn })
    end
    if on_done then
      on_done(w, b)
    end
  end)
end

return M
