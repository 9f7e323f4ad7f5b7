-- agentls.prompt: :AgentPrompt, an MCP server's prompt run as a task
-- (workspace/executeCommand agentls.prompt). Without arguments it lists the
-- prompts of the connected servers (agent/mcp/servers) in vim.ui.select and
-- asks each of the chosen prompt's arguments with vim.ui.input; with
-- "SERVER.PROMPT name=value ..." it runs that prompt at once. The prompt's
-- messages become the user's turn, after the prompts/get approval unless
-- the policy allows it.
local M = {}

local lsp = require("agentls.lsp")

-- plain is a server's text as a picker shows it: control characters
-- (escape sequences) and the bidi and zero-width format characters shown
-- as <XX>, so a server cannot draw over the prompt or reorder it.
function M.plain(s)
  s = tostring(s or "")
  s = s:gsub("%c", function(c)
    return string.format("<%02X>", c:byte())
  end)
  -- U+200B-U+200F, U+202A-U+202E, U+2066-U+2069 (UTF-8: E2 80 8B-8F, E2 80 AA-AE, E2 81 A6-A9)
  s = s:gsub("\226\128[\139-\143\170-\174]", "<fmt>"):gsub("\226\129[\166-\169]", "<fmt>")
  return s
end

--- items are the prompts of the connected servers, for the picker.
function M.items(servers)
  local out = {}
  for _, s in ipairs(servers or {}) do
    if s.state == "connected" and type(s.prompts) == "table" then
      for _, p in ipairs(s.prompts) do
        table.insert(out, { server = s.name, prompt = p })
      end
    end
  end
  return out
end

--- label is how the picker shows one prompt: "server · name [args]: title".
function M.label(item)
  local p = item.prompt
  local args = {}
  for _, a in ipairs(type(p.arguments) == "table" and p.arguments or {}) do
    table.insert(args, a.required and a.name or ("[" .. a.name .. "]"))
  end
  local s = item.server .. " · " .. p.name
  if #args > 0 then
    s = s .. " " .. table.concat(args, " ")
  end
  local about = (p.title and p.title ~= vim.NIL and p.title ~= "") and p.title or p.description
  if about and about ~= vim.NIL and about ~= "" then
    s = s .. ": " .. about
  end
  return M.plain(s)
end

--- parse reads "SERVER.PROMPT name=value ..." into server, prompt, arguments.
function M.parse(text)
  local words = vim.split(vim.trim(text or ""), "%s+")
  local server, name = (words[1] or ""):match("^([^.]+)%.(.+)$")
  if not server then
    return nil, "expected SERVER.PROMPT [name=value ...], got " .. tostring(words[1])
  end
  local args = {}
  for i = 2, #words do
    local k, v = words[i]:match("^([^=]+)=(.*)$")
    if not k then
      return nil, "expected name=value, got " .. words[i]
    end
    args[k] = v
  end
  return { server = server, prompt = name, arguments = args }
end

--- execute runs one prompt (agentls.prompt); on_done(res, err) after the
--- command answered (the task goes on in the background).
function M.execute(client, bufnr, call, on_done)
  local arg = { server = call.server, prompt = call.prompt }
  if next(call.arguments or {}) ~= nil then
    arg.arguments = call.arguments
  end
  lsp.request(client, "workspace/executeCommand", { command = "agentls.prompt", arguments = { arg } }, function(err, res)
    if err then
      vim.notify("agentls: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif res and res.taskId then
      vim.notify("agentls: running the prompt " .. M.plain(call.prompt) .. " of " .. call.server .. " (task " .. res.taskId .. ")",
        vim.log.levels.INFO)
    end
    if on_done then
      on_done(res, err)
    end
  end, bufnr)
end

-- ask asks the arguments one after the other; on_args(nil) when dismissed
-- or a required one was left empty.
local function ask(p, on_args)
  local args = type(p.arguments) == "table" and p.arguments or {}
  local values = {}
  local function step(i)
    local a = args[i]
    if not a then
      return on_args(values)
    end
    local label = M.plain(p.name) .. ": " .. M.plain(a.name)
    if a.description and a.description ~= vim.NIL and a.description ~= "" then
      label = label .. " (" .. M.plain(a.description) .. ")"
    end
    label = label .. (a.required and "" or " [optional]") .. "> "
    vim.ui.input({ prompt = label }, function(v)
      if v == nil or (a.required and vim.trim(v) == "") then
        if v ~= nil then
          vim.notify("agentls: " .. M.plain(a.name) .. " is required", vim.log.levels.WARN)
        end
        return on_args(nil)
      end
      if v ~= "" then
        values[a.name] = v
      end
      step(i + 1)
    end)
  end
  step(1)
end

--- run is :AgentPrompt. text: "" to pick, or "SERVER.PROMPT name=value ...".
function M.run(bufnr, text, on_done)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = lsp.client(bufnr)
  if not client then
    vim.notify("agentls: no agentls client is running", vim.log.levels.WARN)
    return
  end
  if text and vim.trim(text) ~= "" then
    local call, why = M.parse(text)
    if not call then
      vim.notify("agentls: :AgentPrompt " .. why, vim.log.levels.ERROR)
      return
    end
    return M.execute(client, bufnr, call, on_done)
  end
  lsp.request(client, "agent/mcp/servers", {}, function(err, res)
    if err then
      vim.notify("agentls: agent/mcp/servers: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local items = M.items(res and res.servers)
    if #items == 0 then
      vim.notify("agentls: no connected MCP server offers prompts", vim.log.levels.INFO)
      return
    end
    vim.ui.select(items, { prompt = "agentls: run an MCP prompt", kind = "agentls.prompt", format_item = M.label }, function(item)
      if not item then
        return
      end
      ask(item.prompt, function(values)
        if values then
          M.execute(client, bufnr, { server = item.server, prompt = item.prompt.name, arguments = values }, on_done)
        end
      end)
    end)
  end, bufnr)
end

return M
