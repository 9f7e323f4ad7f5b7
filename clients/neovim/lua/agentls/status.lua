-- agentls.status: what the agent is doing, for the statusline. Fed by
-- agent/event and the approval handler; read by require("agentls").statusline().
local M = {}

-- tasks maps taskId to {message}; approvals maps approvalId to the
-- approval being asked.
local tasks = {}
local approvals = {}
-- mode is the session's mode as the last status or done event (or
-- agent/setMode) said it; "ask" shows nothing.
local mode = "ask"

--- set_mode records the session's mode (agent/setMode's answer).
function M.set_mode(m)
  if type(m) == "string" and m ~= "" then
    mode = m
    pcall(vim.cmd, "redrawstatus!")
  end
end

--- mode is the session's mode as last heard.
function M.mode()
  return mode
end

local function redraw()
  -- Events arrive in scheduled callbacks; redrawstatus is safe there.
  pcall(vim.cmd, "redrawstatus!")
end

--- set_approval records an approval being asked (a), or forgets it (nil).
function M.set_approval(approval_id, a)
  approvals[approval_id or "?"] = a
  redraw()
end

--- on_event updates the task table from one agent/event.
function M.on_event(ev)
  if type(ev) ~= "table" or not ev.taskId then
    return
  end
  if (ev.type == "done" or ev.type == "status") and type(ev.mode) == "string" and ev.mode ~= "" then
    mode = ev.mode
  end
  if ev.type == "done" then
    tasks[ev.taskId] = nil
    M.add_usage(ev)
    redraw()
    return
  end
  local t = tasks[ev.taskId] or { message = "working" }
  tasks[ev.taskId] = t
  if ev.type == "tool_call" then
    if ev.status == "awaiting_approval" then
      t.message = "approve " .. (ev.tool or "tool") .. "?"
    elseif ev.status == "running" and type(ev.message) == "string" and ev.message ~= "" then
      -- Progress (a server's, or the status of the task it runs the
      -- call as), on one line and short enough for a statusline.
      local msg = ev.message:gsub("%s+", " ")
      if #msg > 60 then
        msg = msg:sub(1, 59) .. "…"
      end
      t.message = (ev.tool or "tool") .. ": " .. msg
    elseif ev.status == "running" or ev.status == "pending" then
      t.message = "calling " .. (ev.tool or "tool")
    else
      t.message = (ev.tool or "tool") .. " " .. (ev.status or "")
    end
  elseif ev.type == "approval" then
    t.message = ev.state == "waiting" and "approval needed" or "working"
    if ev.state == "resolved" and ev.approvalId then
      -- Answered elsewhere (:AgentApprove, another path, a timeout).
      approvals[ev.approvalId] = nil
    end
  elseif ev.type == "reasoning" then
    t.message = "reasoning"
  elseif ev.type == "text" then
    t.message = "writing"
  elseif ev.type == "status" and ev.message then
    t.message = ev.message
  end
  redraw()
end

--- running is the number of tasks in flight.
function M.running()
  local n = 0
  for _ in pairs(tasks) do
    n = n + 1
  end
  return n
end

-- last is the last turn's usage and cost; sessions sums them per session
-- (what this Neovim saw).
local last, last_session = nil, nil
local sessions = {}

--- add_usage records a done event's usage and cost.
function M.add_usage(ev)
  local u = type(ev.usage) == "table" and ev.usage or nil
  if not u then
    return
  end
  last = { usage = u, cost = type(ev.cost) == "number" and ev.cost or nil }
  last_session = ev.sessionId or "?"
  local s = sessions[last_session] or { input = 0, output = 0, cost = nil }
  s.input = s.input + (tonumber(u.inputTokens) or 0)
  s.output = s.output + (tonumber(u.outputTokens) or 0)
  if last.cost then
    s.cost = (s.cost or 0) + last.cost
  end
  sessions[last_session] = s
end

local function thousands(n)
  local s = tostring(math.floor(tonumber(n) or 0))
  local out = s:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (out:gsub("^,", ""))
end

local function dollars(c)
  if c < 0.01 then
    return string.format("$%.4f", c)
  elseif c < 1 then
    return string.format("$%.3f", c)
  end
  return string.format("$%.2f", c)
end

--- usage is the last turn's tokens, cache share and cost, then the
--- session's: "" before any turn ended.
function M.usage()
  if not last then
    return ""
  end
  local u = last.usage
  local input = tonumber(u.inputTokens) or 0
  local text = thousands(input) .. " in"
  if input > 0 then
    text = text .. string.format(" (%d%% cache)", math.floor(100 * (tonumber(u.cacheReadTokens) or 0) / input + 0.5))
  end
  text = text .. " · " .. thousands(u.outputTokens) .. " out"
  if last.cost then
    text = text .. " · " .. dollars(last.cost)
  end
  local s = sessions[last_session]
  text = text .. " · session " .. thousands(s.input) .. " in, " .. thousands(s.output) .. " out"
  if s.cost then
    text = text .. ", " .. dollars(s.cost)
  end
  return text
end

--- forget drops every task (the client exited).
function M.forget()
  tasks = {}
  approvals = {}
  redraw()
end

--- text is the statusline component: "" when idle in ask mode; another
--- mode is named, "agentls [plan]", idle or not.
function M.text()
  local name = mode == "ask" and "agentls" or ("agentls [" .. mode .. "]")
  for _, a in pairs(approvals) do
    if a then
      return name .. ": approval needed"
    end
  end
  local n, msg = 0, nil
  for _, t in pairs(tasks) do
    n = n + 1
    msg = msg or t.message
  end
  if n == 0 then
    return mode == "ask" and "" or name
  end
  if n > 1 then
    return string.format("%s: %d tasks, %s", name, n, msg)
  end
  return name .. ": " .. msg
end

return M
