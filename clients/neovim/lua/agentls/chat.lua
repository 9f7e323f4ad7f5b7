-- agentls.chat: :AgentChat, the conversation in a split. The upper window
-- is the session's live transcript (agentls.transcript: Markdown, answers
-- streaming in, each tool call's arguments and result folded under its
-- line, reasoning folded); the lower one is the prompt, a scratch buffer
-- sent with <CR> in normal mode (or <C-s> in either mode). Approvals are
-- asked as everywhere else (agentls.approval). What it sends is agent/run
-- with the chat's session, so every turn follows the ones before it.
local M = {}

local lsp = require("agentls.lsp")
local transcript = require("agentls.transcript")

--- prompt_height is the prompt window's height, in lines.
M.prompt_height = 5

--- commands are the chat's own slash commands (MCP prompts come besides,
--- as /SERVER.PROMPT).
M.commands = {
  new = "start an empty session",
  compact = "compact the session (summarize older turns)",
  mcp = "the MCP servers, their tools and policy",
  sessions = "reopen a past session",
}

-- prompt_buf is the prompt buffer (one for every session); origin is the
-- file buffer the chat was opened from, which @file, @selection and
-- #diagnostics name.
local prompt_buf = nil
local origin = nil

local function agentls()
  return require("agentls")
end

local function notify(msg, level)
  vim.notify("agentls: " .. msg, level or vim.log.levels.INFO)
end

-- client is the agentls client of the chat's file (any, else), or nil
-- after saying none runs.
local function client()
  local c = lsp.client(origin)
  if not c then
    notify("no agentls client is running (call require('agentls').setup{} and open a file)", vim.log.levels.WARN)
  end
  return c
end

local function window_of(b)
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == b then
      return w
    end
  end
  return nil
end

--- is_chat_buffer reports whether b is the prompt or a conversation.
function M.is_chat_buffer(b)
  return b == prompt_buf or vim.b[b].agentls_chat == true
end

local function map(b, modes, lhs, fn, desc)
  for _, mode in ipairs(modes) do
    vim.keymap.set(mode, lhs, fn, { buffer = b, silent = true, desc = "agentls: " .. desc })
  end
end

--- prompt_buffer is the prompt buffer (created when needed).
function M.prompt_buffer()
  if prompt_buf and vim.api.nvim_buf_is_valid(prompt_buf) then
    return prompt_buf
  end
  local b = vim.api.nvim_create_buf(false, true)
  vim.bo[b].buftype = "nofile"
  vim.bo[b].bufhidden = "hide"
  vim.bo[b].swapfile = false
  pcall(vim.api.nvim_buf_set_name, b, "agentls://chat/prompt")
  vim.bo[b].filetype = "markdown"
  map(b, { "n" }, "<CR>", M.submit, "send the prompt")
  map(b, { "n", "i" }, "<C-s>", M.submit, "send the prompt")
  map(b, { "n" }, "<C-c>", function()
    agentls().cancel(origin)
  end, "cancel the running turn")
  prompt_buf = b
  return b
end

-- conversation is a session's transcript buffer, with the chat's keys.
local function conversation(session)
  local b = transcript.buffer(session)
  if not vim.b[b].agentls_chat then
    vim.b[b].agentls_chat = true
    map(b, { "n" }, "i", M.focus_prompt, "write in the prompt")
    map(b, { "n" }, "<C-c>", function()
      agentls().cancel(origin)
    end, "cancel the running turn")
  end
  return b
end

--- focus_prompt moves the cursor to the prompt window.
function M.focus_prompt()
  local w = prompt_buf and window_of(prompt_buf)
  if w then
    vim.api.nvim_set_current_win(w)
  end
end

-- show lays the chat out for session: the conversation on the right, the
-- prompt under it; windows already showing them are reused.
local function show(session)
  local conv = conversation(session)
  local pb = M.prompt_buffer()
  local cw = window_of(conv)
  if not cw then
    -- Another conversation on screen makes way for this one.
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      local b = vim.api.nvim_win_get_buf(w)
      if vim.b[b].agentls_chat then
        cw = w
        vim.api.nvim_win_set_buf(w, conv)
        break
      end
    end
  end
  if not cw then
    local pw = window_of(pb)
    if pw then
      vim.api.nvim_set_current_win(pw)
      vim.cmd("aboveleft split")
    else
      vim.cmd("botright vsplit")
    end
    cw = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(cw, conv)
  end
  vim.wo[cw].wrap = true
  vim.wo[cw].linebreak = true
  transcript.fold_reasoning(cw)
  pcall(vim.api.nvim_win_set_cursor, cw, { vim.api.nvim_buf_line_count(conv), 0 })
  if not window_of(pb) then
    vim.api.nvim_set_current_win(cw)
    vim.cmd("belowright " .. M.prompt_height .. "split")
    vim.api.nvim_win_set_buf(0, pb)
  end
  M.focus_prompt()
  return conv
end

-- new_session asks agentls for an empty session, then shows it.
local function new_session(on_done)
  local c = client()
  if not c then
    return
  end
  lsp.request(c, "agent/newChat", vim.empty_dict(), function(err, res)
    if err or not (res and res.sessionId) then
      notify("agent/newChat: " .. (err and err.message or "no sessionId"), vim.log.levels.ERROR)
      return
    end
    transcript.current = res.sessionId
    show(res.sessionId)
    if on_done then
      on_done(res.sessionId)
    end
  end, origin)
end

--- open is :AgentChat: it shows the chat of the current session (started
--- when there is none) and sends text when given. on_open(session) once it
--- shows.
function M.open(text, on_open)
  local cur = vim.api.nvim_get_current_buf()
  if not M.is_chat_buffer(cur) then
    origin = cur
  end
  local function ready(session)
    if text and vim.trim(text) ~= "" then
      M.send(text)
    end
    if on_open then
      on_open(session)
    end
  end
  if transcript.current then
    show(transcript.current)
    return ready(transcript.current)
  end
  new_session(ready)
end

--- submit sends what the prompt buffer holds and empties it.
function M.submit()
  local b = M.prompt_buffer()
  local text = vim.trim(table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n"))
  if text == "" then
    return
  end
  vim.api.nvim_buf_set_lines(b, 0, -1, false, {})
  if vim.fn.mode() == "i" then
    vim.cmd("stopinsert")
  end
  M.send(text)
end

-- lsp_diagnostics turns vim.diagnostic's entries of b into LSP diagnostics
-- (the ones a server published are sent as it published them).
local function lsp_diagnostics(b)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(b)) do
    local own = type(d.user_data) == "table" and type(d.user_data.lsp) == "table" and d.user_data.lsp
    table.insert(out, own or {
      range = {
        start = { line = d.lnum, character = d.col },
        ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
      },
      severity = d.severity,
      source = d.source,
      code = d.code,
      message = d.message,
    })
  end
  return out
end

--- mentions reads the context a prompt names: @file (the file the chat was
--- opened from), @selection (its last visual selection) and #diagnostics
--- (its diagnostics). The words stay in the prompt; what they name goes
--- with it (agent/run's textDocument, range and diagnostics).
function M.mentions(text)
  local function says(word)
    return (" " .. text .. " "):find("[%s%p]" .. vim.pesc(word) .. "[%s%p]") ~= nil
  end
  return { file = says("@file"), selection = says("@selection"), diagnostics = says("#diagnostics") }
end

-- run_command runs one slash command; false when it is not one.
local function run_command(text)
  local name, rest = text:match("^/(%S+)%s*(.*)$")
  if not name then
    return false
  end
  if name == "new" then
    agentls().new_chat(origin, function(session)
      show(session)
    end)
  elseif name == "compact" then
    agentls().compact(origin)
  elseif name == "mcp" then
    agentls().mcp(origin)
  elseif name == "sessions" then
    M.pick_session()
  elseif name:find("%.") then
    local prompt = require("agentls.prompt")
    local call, why = prompt.parse(name .. " " .. rest)
    if not call then
      notify("/" .. name .. ": " .. why, vim.log.levels.ERROR)
      return true
    end
    local c = client()
    if not c then
      return true
    end
    call.sessionId = transcript.current
    transcript.next_prompt = "/" .. name .. (rest ~= "" and (" " .. rest) or "")
    prompt.execute(c, origin, call)
  else
    local names = {}
    for k in pairs(M.commands) do
      table.insert(names, "/" .. k)
    end
    table.sort(names)
    notify("unknown command /" .. name .. ": the chat knows " .. table.concat(names, ", ") .. " and /SERVER.PROMPT (an MCP server's prompt)",
      vim.log.levels.ERROR)
  end
  return true
end

--- send sends one prompt of the chat: a slash command runs, anything else
--- is the next turn of the session, with what its mentions name.
function M.send(text, on_result)
  if run_command(text) then
    return
  end
  local m = M.mentions(text)
  local b = origin
  if not (b and vim.api.nvim_buf_is_valid(b)) then
    b = nil
  end
  local opts = { prompt = text, bufnr = b, document = false, chat = true, on_result = on_result }
  if b and (m.file or m.selection or m.diagnostics) then
    opts.document = true
  end
  if b and m.selection then
    local s, e = vim.api.nvim_buf_get_mark(b, "<"), vim.api.nvim_buf_get_mark(b, ">")
    if s[1] > 0 and e[1] > 0 then
      opts.line1, opts.line2, opts.visual = s[1], e[1], true
    else
      notify("@selection: " .. vim.api.nvim_buf_get_name(b) .. " has no visual selection yet; the file goes instead", vim.log.levels.WARN)
    end
  end
  if b and m.diagnostics then
    opts.diagnostics = lsp_diagnostics(b)
  end
  return agentls().run(opts)
end

--- label is how the session picker shows one session.
function M.label(s)
  local plain = require("agentls.prompt").plain
  local title = (s.title and s.title ~= vim.NIL and s.title ~= "") and s.title or s.sessionId
  return string.format("%s · %s · %d turns", plain(title), plain(s.updatedAt or ""), tonumber(s.turns) or 0)
end

--- pick_session lists the past sessions (agent/sessions) and reopens the
--- one picked. on_done(session) once it shows.
function M.pick_session(on_done)
  local c = client()
  if not c then
    return
  end
  lsp.request(c, "agent/sessions", vim.empty_dict(), function(err, res)
    if err then
      notify("agent/sessions: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local list = res and res.sessions or {}
    if #list == 0 then
      notify("no session yet: say something in the chat first")
      return
    end
    vim.ui.select(list, { prompt = "agentls: reopen a session", kind = "agentls.session", format_item = M.label }, function(s)
      if s then
        M.resume(s.sessionId, on_done)
      end
    end)
  end, origin)
end

--- resume makes session the chat's: the next prompt continues it. A
--- session this Neovim has not shown yet is shown as agentls stored it
--- (agent/replay: its prompts, answers, tool calls and results).
function M.resume(session, on_done)
  transcript.current = session
  local function done()
    show(session)
    if on_done then
      on_done(session)
    end
  end
  if transcript.find(session) then
    return done()
  end
  local c = client()
  if not c then
    return
  end
  lsp.request(c, "agent/replay", { sessionId = session }, function(err, res)
    if err then
      notify("agent/replay: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    transcript.replay(session, res and res.events)
    done()
  end, origin)
end

--- close closes the chat's windows; the conversation stays (:AgentChat
--- shows it again).
function M.close()
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if M.is_chat_buffer(vim.api.nvim_win_get_buf(w)) and #vim.api.nvim_list_wins() > 1 then
      vim.api.nvim_win_close(w, true)
    end
  end
end

--- visible reports whether a window shows session's conversation.
function M.visible(session)
  local b = session and transcript.find(session)
  return b ~= nil and window_of(b) ~= nil
end

--- reveal shows session's conversation without moving the cursor (an
--- answer too long for the echo area, from :AgentRun or a code action).
function M.reveal(session)
  if M.visible(session) then
    return
  end
  local w = vim.api.nvim_get_current_win()
  local cur = vim.api.nvim_get_current_buf()
  if not M.is_chat_buffer(cur) then
    origin = cur
  end
  show(session)
  if vim.api.nvim_win_is_valid(w) then
    vim.api.nvim_set_current_win(w)
  end
end

return M
