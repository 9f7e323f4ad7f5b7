-- agentls.transcript: one scratch buffer per session, fed live by agent/event
-- (PROTOCOL.md section 3). The Markdown file the server keeps is the record;
-- this buffer is the live view of it.
local M = {}

-- bufs maps sessionId to buffer number; seen_task remembers which tasks got
-- their heading.
local bufs = {}
local seen_task = {}
-- after_block marks buffers whose last entry was a block line (tool call,
-- result...): the next streamed text starts after a blank line.
local after_block = {}

--- next_prompt is the prompt of the task the plugin just started: the next
--- new task's heading shows it (the taskId is not known before its events).
M.next_prompt = nil

--- current is the session the plugin's commands continue.
M.current = nil

local function buf_for(session)
  local b = bufs[session]
  if b and vim.api.nvim_buf_is_valid(b) then
    return b
  end
  b = vim.api.nvim_create_buf(false, true)
  vim.bo[b].buftype = "nofile"
  vim.bo[b].bufhidden = "hide"
  vim.bo[b].swapfile = false
  pcall(vim.api.nvim_buf_set_name, b, "agentls://transcript/" .. session)
  vim.bo[b].filetype = "markdown"
  vim.api.nvim_buf_set_lines(b, 0, -1, false, { "# agentls session " .. session, "" })
  bufs[session] = b
  return b
end

--- buffer returns the transcript buffer of a session (created when needed).
function M.buffer(session)
  return buf_for(session)
end

--- find returns the buffer of a session if it exists, else nil.
function M.find(session)
  local b = bufs[session]
  if b and vim.api.nvim_buf_is_valid(b) then
    return b
  end
  return nil
end

-- append adds text at the end of the buffer, continuing its last line.
local function append(b, text)
  local last = vim.api.nvim_buf_line_count(b) - 1
  local tail = vim.api.nvim_buf_get_lines(b, last, last + 1, false)[1] or ""
  local lines = vim.split(tail .. text, "\n", { plain = true })
  vim.api.nvim_buf_set_lines(b, last, last + 1, false, lines)
end

local function add_lines(b, lines)
  local last = vim.api.nvim_buf_line_count(b)
  local tail = vim.api.nvim_buf_get_lines(b, last - 1, last, false)[1] or ""
  if tail ~= "" then
    table.insert(lines, 1, "")
  end
  vim.api.nvim_buf_set_lines(b, last, last, false, lines)
end

local function one_line(s)
  s = tostring(s or "")
  return (s:gsub("\r?\n", " ⏎ "))
end

local function follow(b)
  -- Keep windows showing the transcript scrolled to its end.
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == b then
      pcall(vim.api.nvim_win_set_cursor, w, { vim.api.nvim_buf_line_count(b), 0 })
    end
  end
end

--- on_event renders one agent/event into its session's buffer.
function M.on_event(ev)
  if type(ev) ~= "table" or not ev.sessionId then
    return
  end
  local b = buf_for(ev.sessionId)
  if ev.taskId and not seen_task[ev.taskId] then
    seen_task[ev.taskId] = true
    local prompt = M.next_prompt
    M.next_prompt = nil
    add_lines(b, { "## " .. (prompt and one_line(prompt) or ("task " .. ev.taskId)), "", "" })
  end
  if ev.type == "text" then
    if after_block[b] then
      add_lines(b, { "" })
      after_block[b] = false
    end
    append(b, ev.delta or "")
  elseif ev.type == "tool_call" then
    local who = ev.server and ev.server ~= vim.NIL and (ev.server .. " · ") or ""
    add_lines(b, {
      string.format("> %s%s %s (%s)", who, ev.tool or "?", one_line(ev.title or ""), ev.status or ""),
      "",
    })
  elseif ev.type == "tool_result" then
    local mark = ev.isError and "error" or (ev.status or "done")
    add_lines(b, { string.format("> result %s: %s", mark, one_line(ev.output or "")), "" })
  elseif ev.type == "approval" then
    add_lines(b, { string.format("> approval %s %s", ev.state or "", ev.optionId or ""), "" })
  elseif ev.type == "status" then
    add_lines(b, { "> " .. one_line(ev.message or ""), "" })
  elseif ev.type == "done" then
    add_lines(b, { "--- " .. (ev.stopReason or "done"), "" })
  end
  after_block[b] = ev.type ~= "text"
  follow(b)
end

--- open shows a session's transcript in a split (reusing a window showing it).
function M.open(session)
  local b = buf_for(session)
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == b then
      vim.api.nvim_set_current_win(w)
      return b
    end
  end
  vim.cmd("botright split")
  vim.api.nvim_win_set_buf(0, b)
  follow(b)
  return b
end

return M
