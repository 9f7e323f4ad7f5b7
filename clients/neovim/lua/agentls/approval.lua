-- agentls.approval: the approval card of docs/protocol.md section 4, asked
-- through vim.ui.select. It answers agent/requestApproval and :AgentApprove.
-- It never approves by itself: no answer, an error or a dismissed card is a
-- denial ({outcome = "cancelled"}).
local M = {}

local lsp = require("agentls.lsp")
local status = require("agentls.status")
local form = require("agentls.form")

--- shell_quote renders one argument so it can be pasted into a shell.
function M.shell_quote(arg)
  arg = tostring(arg)
  if arg ~= "" and not arg:find("[^%w%-_./=:@,+%%]") then
    return arg
  end
  return "'" .. arg:gsub("'", "'\\''") .. "'"
end

--- argv renders a command line literally, each argument quoted as needed.
function M.argv(cmd)
  local parts = {}
  for _, a in ipairs(cmd or {}) do
    table.insert(parts, M.shell_quote(a))
  end
  return table.concat(parts, " ")
end

local function json(v)
  if v == nil or v == vim.NIL then
    return "{}"
  end
  local ok, s = pcall(vim.fn.json_encode, v)
  return ok and s or vim.inspect(v)
end

--- card is the text shown for an approval, line by line: the title, then the
--- server's detail verbatim (the literal command line of a launch, with every
--- env pair and the cwd; `server · tool` and the arguments of a call). When
--- the detail lacks them, the card builds them from the approval's fields.
--- Nothing is summarized: a summary could hide the one argument that makes a
--- command dangerous.
function M.card(a)
  local lines = { a.title or "agentls: approval needed" }
  local detail = type(a.detail) == "string" and a.detail or ""
  local function field(v)
    return v ~= nil and v ~= vim.NIL and v ~= "" and v or nil
  end
  if a.kind == "mcp_launch" or type(a.command) == "table" and #a.command > 0 then
    if detail == "" then
      table.insert(lines, "$ " .. M.argv(a.command))
      for _, pair in ipairs(type(a.env) == "table" and a.env or {}) do
        table.insert(lines, "  env " .. tostring(pair[1]) .. "=" .. M.shell_quote(pair[2]))
      end
      if field(a.cwd) then
        table.insert(lines, "  cwd " .. a.cwd)
      end
    end
  elseif field(a.server) and a.kind ~= "elicitation" then
    local head = a.server .. " · " .. (field(a.tool) or "?")
    if not detail:find(head, 1, true) then
      table.insert(lines, head .. " " .. json(a.arguments))
    end
  elseif field(a.tool) and field(a.arguments) and detail == "" then
    table.insert(lines, a.tool .. " " .. json(a.arguments))
  end
  for _, l in ipairs(detail ~= "" and vim.split(detail, "\n", { plain = true }) or {}) do
    table.insert(lines, l)
  end
  return lines
end

--- ask shows the card and calls done({outcome=...}) exactly once.
function M.ask(a, done)
  local options = a.options or {}
  if #options == 0 then
    done({ outcome = "cancelled" })
    return
  end
  local called = false
  local function finish(res)
    if not called then
      called = true
      done(res)
    end
  end
  local ok, err = pcall(vim.ui.select, options, {
    prompt = table.concat(M.card(a), "\n"),
    kind = "agentls.approval",
    format_item = function(o)
      return o.name or o.optionId
    end,
    agentls_approval = a,
  }, function(choice)
    local e = type(a.elicitation) == "table" and a.elicitation or {}
    if choice and choice.optionId == "accept" and a.kind == "elicitation" and e.mode == "form" then
      -- Submit: the form itself, field by field; backing out declines.
      form.fill(a, function(content)
        if content then
          finish({ outcome = "selected", optionId = "accept", content = content })
        else
          finish({ outcome = "selected", optionId = "decline" })
        end
      end)
    elseif choice and choice.optionId then
      finish({ outcome = "selected", optionId = choice.optionId })
    else
      finish({ outcome = "cancelled" })
    end
  end)
  if not ok then
    vim.notify("agentls: approval prompt failed: " .. tostring(err), vim.log.levels.ERROR)
    finish({ outcome = "cancelled" })
  end
end

--- wait_timeout_ms bounds the synchronous wait of the 0.7 path (the server's
--- own approval_timeout denies before this in practice).
M.wait_timeout_ms = 10 * 60 * 1000

--- last_wait says how the last answer was awaited: "none" (the picker
--- answered at once), "coroutine" or "vim.wait". Shown by :checkhealth agentls.
M.last_wait = nil

--- handler answers agent/requestApproval. On 0.10+ the request runs in a
--- coroutine, so an asynchronous vim.ui.select can take its time; on 0.7 the
--- reply is whatever this returns, so it waits for the answer in place.
function M.handler(_, params, ctx)
  if type(params) ~= "table" then
    return { outcome = "cancelled" }
  end
  status.set_approval(params.approvalId, params)
  local result
  local co, is_main = coroutine.running()
  local yielded = false
  M.ask(params, function(res)
    result = res
    if yielded then
      local ok, err = coroutine.resume(co)
      if not ok then
        vim.notify("agentls: " .. tostring(err), vim.log.levels.ERROR)
      end
    end
  end)
  M.last_wait = "none"
  if not result then
    if co and not is_main then
      M.last_wait = "coroutine"
      yielded = true
      coroutine.yield()
    else
      M.last_wait = "vim.wait"
      vim.wait(M.wait_timeout_ms, function()
        return result ~= nil
      end, 20)
    end
  end
  status.set_approval(params.approvalId, nil)
  -- What the user typed while the card was open reaches agentls before the
  -- answer does, so an edit is compared with the buffer as they left it
  -- (else Neovim holds the didChange back 150 ms and agentls, seeing the
  -- old buffer, would replace it with text built before the card).
  local client = type(ctx) == "table" and vim.lsp.get_client_by_id(ctx.client_id)
  if client then
    lsp.flush(client)
  end
  return result or { outcome = "cancelled" }
end

--- approve_waiting lists the approvals still waiting (agent/approvals) and
--- asks about the oldest, answering through agent/resolveApproval.
function M.approve_waiting(bufnr)
  local client = lsp.client(bufnr)
  if not client then
    vim.notify("agentls: no agentls client is running", vim.log.levels.WARN)
    return
  end
  lsp.request(client, "agent/approvals", {}, function(err, res)
    if err then
      vim.notify("agentls: agent/approvals: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local list = res and res.approvals or {}
    if #list == 0 then
      vim.notify("agentls: no approval is waiting", vim.log.levels.INFO)
      return
    end
    local a = list[1]
    M.ask(a, function(answer)
      if answer.outcome ~= "selected" then
        return
      end
      lsp.request(client, "agent/resolveApproval", { approvalId = a.approvalId, optionId = answer.optionId }, function(e)
        if e then
          vim.notify("agentls: agent/resolveApproval: " .. (e.message or vim.inspect(e)), vim.log.levels.ERROR)
        end
      end)
    end)
  end, bufnr)
end

return M
