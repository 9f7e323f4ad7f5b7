-- agentls.mcp: :AgentMcp, the server list of PROTOCOL.md section 2
-- (agent/mcp/servers) in a floating window: each server's state, its literal
-- command line, its tools and the policy each call would get.
local M = {}

local lsp = require("agentls.lsp")
local approval = require("agentls.approval")

local function str(v)
  if v == nil or v == vim.NIL then
    return ""
  end
  return tostring(v)
end

--- lines renders the server list as text, one block per server.
function M.lines(servers)
  local out = {}
  if #servers == 0 then
    return { "No MCP servers configured.", "", "Add [mcp.servers.NAME] to ~/.config/agentls/config.toml." }
  end
  for i, s in ipairs(servers) do
    if i > 1 then
      table.insert(out, "")
    end
    table.insert(out, string.format("%s  [%s]  (%s)", str(s.name), str(s.state), str(s.origin)))
    table.insert(out, "  $ " .. approval.argv(s.command))
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
  end
  return out
end

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

--- show asks agent/mcp/servers and opens the float.
function M.show(bufnr, on_done)
  local client = lsp.client(bufnr)
  if not client then
    vim.notify("agentls: no agentls client is running", vim.log.levels.WARN)
    return
  end
  lsp.request(client, "agent/mcp/servers", {}, function(err, res)
    if err then
      vim.notify("agentls: agent/mcp/servers: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local w, b = M.float(M.lines(res and res.servers or {}), " agentls MCP servers ")
    if on_done then
      on_done(w, b)
    end
  end, bufnr)
end

return M
