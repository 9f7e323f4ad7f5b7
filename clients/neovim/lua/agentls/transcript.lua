-- agentls.transcript: one scratch buffer per session, fed live by agent/event
-- (docs/protocol.md section 3). The Markdown file the server keeps is the record;
-- this buffer is the live view of it. The buffer is not modifiable by hand:
-- the lines of tool calls and approvals are updated in place as they change.
local M = {}

-- bufs maps sessionId to buffer number.
local bufs = {}
-- tasks maps taskId to {streamed = bool}: heading written, text seen.
local tasks = {}
-- blocks maps buffer to {key -> 0-based line} for lines updated in place.
local blocks = {}
-- calls maps toolCallId to its line's label, to show how the call ended.
local calls = {}
-- after_block marks buffers whose last entry was a block line (tool call,
-- result...): the next streamed text starts after a blank line.
local after_block = {}
-- reasoning marks buffers in the middle of a block of the model's reasoning.
local reasoning = {}
-- names are prompts of tasks not seen yet (M.name_task), by taskId.
local names = {}

--- reasoning_mark starts every line of the model's reasoning: it is marked,
--- and a window showing the transcript folds those lines away (M.open), so
--- it never reads as the answer.
M.reasoning_mark = "┆ "

--- detail_mark starts the lines under a tool call's line: its arguments
--- and its result, folded away like reasoning (zo opens them).
M.detail_mark = "  │ "

--- preview_chars caps each line under a tool call; preview_lines caps how
--- many lines of a result are shown (the Markdown file keeps the rest).
M.preview_chars = 200
M.preview_lines = 20

--- next_prompt is the prompt of the task the plugin just started: the next
--- new task's heading shows it (the taskId is not known before its events).
M.next_prompt = nil

--- current is the session the plugin's commands continue.
M.current = nil

-- edit runs fn with the buffer modifiable.
local function edit(b, fn)
  vim.bo[b].modifiable = true
  local ok, err = pcall(fn)
  vim.bo[b].modifiable = false
  if not ok then
    error(err)
  end
end

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
  vim.bo[b].modifiable = false
  bufs[session] = b
  blocks[b] = {}
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

-- add_lines appends whole lines, after a blank line when the last one is not.
local function add_lines(b, lines)
  local last = vim.api.nvim_buf_line_count(b)
  local tail = vim.api.nvim_buf_get_lines(b, last - 1, last, false)[1] or ""
  if tail ~= "" then
    table.insert(lines, 1, "")
  end
  vim.api.nvim_buf_set_lines(b, last, last, false, lines)
end

-- block writes an entry: a line, then the lines under it; an entry with
-- the same key has its first line replaced (the lines under it stay).
local function block(b, key, text, under)
  local idx = key and blocks[b][key]
  if idx then
    vim.api.nvim_buf_set_lines(b, idx, idx + 1, false, { text })
    return
  end
  local lines = { text }
  vim.list_extend(lines, under or {})
  table.insert(lines, "")
  local n = #lines
  add_lines(b, lines)
  if key then
    blocks[b][key] = vim.api.nvim_buf_line_count(b) - n
  end
end

local function str(v)
  if v == nil or v == vim.NIL then
    return ""
  end
  return tostring(v)
end

local function one_line(s, max)
  s = str(s):gsub("\r?\n", " ⏎ ")
  if max and #s > max then
    s = s:sub(1, max) .. "…"
  end
  return s
end

-- json is v as compact JSON (vim.json from 0.7 on; json_encode adds spaces).
local function json(v)
  local ok, out = pcall(vim.json and vim.json.encode or vim.fn.json_encode, v)
  return ok and out or ""
end

-- details are text shown under a tool call, line by line, marked and capped.
local function details(text, max_lines)
  local out = {}
  local lines = vim.split(str(text), "\r?\n")
  while #lines > 0 and lines[#lines] == "" do
    table.remove(lines)
  end
  for i, l in ipairs(lines) do
    if max_lines and i > max_lines then
      table.insert(out, M.detail_mark .. string.format("… %d more lines in the transcript file (:AgentTranscript!)", #lines - max_lines))
      break
    end
    table.insert(out, M.detail_mark .. one_line(l, M.preview_chars))
  end
  return out
end

local function render(b, ev)
  local task = tasks[ev.taskId or ""]
  if ev.type == "reasoning" then
    local d = str(ev.delta)
    if d == "" then
      return
    end
    if not reasoning[b] then
      add_lines(b, { M.reasoning_mark })
      reasoning[b] = true
    end
    append(b, (d:gsub("\n", "\n" .. M.reasoning_mark)))
    return
  end
  if reasoning[b] then
    -- The reasoning block ends: what follows starts after a blank line.
    reasoning[b] = nil
    add_lines(b, { "" })
    after_block[b] = false
  end
  if ev.type == "prompt" then
    -- A user prompt of a replayed session (agent/replay).
    block(b, nil, "## " .. one_line(ev.text))
    return
  end
  if ev.type == "text" then
    if after_block[b] then
      add_lines(b, { "" })
    end
    append(b, str(ev.delta))
    if task then
      task.streamed = true
    end
    return
  end
  if ev.type == "tool_call" then
    local what = str(ev.title) ~= "" and str(ev.title) or str(ev.tool)
    -- An MCP call's title already names its server ("v2 · long").
    local who = str(ev.server) ~= "" and (str(ev.server) .. " · ") or ""
    if vim.startswith(what, who) then
      who = ""
    end
    local label = "> " .. who .. one_line(what)
    local key = "tool:" .. str(ev.toolCallId)
    local under = nil
    if not blocks[b][key] then
      local args = ev.arguments ~= nil and ev.arguments ~= vim.NIL and json(ev.arguments) or ""
      if args ~= "" and args ~= "{}" and args ~= "[]" then
        under = { M.detail_mark .. one_line(args, M.preview_chars) }
      end
    end
    calls[str(ev.toolCallId)] = label
    local state = str(ev.status)
    if state == "running" and str(ev.message) ~= "" then
      -- Progress (a server's, or the status of the task it runs the call
      -- as): the call's line says the latest.
      state = state .. ": " .. one_line(ev.message, M.preview_chars)
    end
    block(b, key, string.format("%s (%s)", label, state), under)
  elseif ev.type == "tool_result" then
    local mark = ev.isError and "error" or (str(ev.status) ~= "" and str(ev.status) or "done")
    local label = calls[str(ev.toolCallId)]
    if label then
      -- The call's own line shows how it ended.
      block(b, "tool:" .. str(ev.toolCallId), string.format("%s (%s)", label, mark))
    end
    local out = details(ev.output, M.preview_lines)
    if #out > 0 then
      add_lines(b, out)
    end
  elseif ev.type == "approval" then
    local text = ev.state == "waiting" and "> approval needed"
      or ("> approval: " .. (str(ev.optionId) ~= "" and str(ev.optionId) or "denied"))
    block(b, "approval:" .. str(ev.approvalId), text)
  elseif ev.type == "status" then
    block(b, nil, "> " .. one_line(ev.message))
  elseif ev.type == "done" then
    -- A provider that did not stream: show the final text once.
    if task and not task.streamed and str(ev.text) ~= "" then
      add_lines(b, vim.split(str(ev.text), "\n", { plain = true }))
    end
    -- How the task ended, and why when it stopped short (max_tokens,
    -- refusal, an error).
    local why = str(ev.error) ~= "" and (": " .. one_line(ev.error)) or ""
    block(b, nil, "--- " .. (str(ev.stopReason) ~= "" and str(ev.stopReason) or "done") .. why)
  end
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
  edit(b, function()
    if ev.taskId and ev.taskId ~= "" and not tasks[ev.taskId] then
      tasks[ev.taskId] = { streamed = false, session = ev.sessionId }
      local prompt = M.next_prompt or names[ev.taskId]
      M.next_prompt, names[ev.taskId] = nil, nil
      tasks[ev.taskId].titled = prompt ~= nil
      block(b, "task:" .. ev.taskId, "## " .. (prompt and one_line(prompt) or ("task " .. ev.taskId)))
      after_block[b] = true
    end
    render(b, ev)
  end)
  after_block[b] = ev.type ~= "text"
  follow(b)
end

--- name_task gives a task the plugin did not start (a code action,
--- agentls.run) its prompt as its heading: now if its heading is written,
--- else when its first event comes.
function M.name_task(task_id, prompt)
  local t = tasks[task_id]
  if not t then
    names[task_id] = prompt
    return
  end
  local b = t.session and M.find(t.session)
  if not b or t.titled then
    return
  end
  t.titled = true
  edit(b, function()
    block(b, "task:" .. task_id, "## " .. one_line(prompt))
  end)
end

--- replay renders a stored session's events (agent/replay) into its
--- buffer, before what streams next.
function M.replay(session, events)
  local b = buf_for(session)
  for _, ev in ipairs(events or {}) do
    if type(ev) == "table" then
      ev.sessionId, ev.taskId = session, nil
      M.on_event(ev)
    end
  end
  return b
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
  M.fold_reasoning(vim.api.nvim_get_current_win())
  follow(b)
  return b
end

--- fold_reasoning makes window w fold the reasoning lines of the transcript
--- it shows, and the lines under each tool call, closed until opened (zo).
function M.fold_reasoning(w)
  vim.wo[w].foldmethod = "expr"
  -- A blank line goes with the line before it, so a call's arguments and
  -- its result make one fold even with a blank line between them.
  vim.wo[w].foldexpr = "getline(v:lnum)=~'^\\(" .. M.reasoning_mark .. "\\|" .. M.detail_mark
    .. "\\)'?1:(getline(v:lnum)==''?'=':0)"
  vim.wo[w].foldlevel = 0
  vim.wo[w].foldenable = true
end

return M
