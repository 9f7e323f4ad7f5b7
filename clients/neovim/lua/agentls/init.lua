-- agentls: the Neovim client of agentls, an LSP server that hosts an AI coding
-- agent. setup{} attaches agentls to every buffer with a file; the :Agent*
-- commands (plugin/agentls.lua) call the functions below. It speaks the wire
-- protocol of agentls (docs/protocol.md) and nothing else: the agent, its tools and
-- every approval decision live in the server.
local M = {}

local lsp = require("agentls.lsp")
local approval = require("agentls.approval")
local status = require("agentls.status")
local transcript = require("agentls.transcript")

local defaults = {
  -- cmd starts the server; it must speak LSP on stdio.
  cmd = { "agentls", "serve" },
  -- cmd_env is extra environment for the server process.
  cmd_env = nil,
  -- root_markers decide a buffer's workspace root (one client per root).
  root_markers = { ".git", ".agentls", ".hg", ".jj" },
  -- capabilities are merged into the announced client capabilities.
  capabilities = nil,
  -- on_attach(client, bufnr) runs for every attached buffer.
  on_attach = nil,
  -- open_transcript opens the live transcript when :AgentRun starts a task.
  open_transcript = false,
}

M.config = vim.deepcopy(defaults)

-- pending maps LSP request ids of agent/run to their client, for :AgentCancel.
local pending = {}
-- running lists the taskIds in flight, oldest first, for :AgentCancel.
local running = {}
-- autocmd_data: nvim_exec_autocmds takes `data` from 0.8 on.
local autocmd_data = vim.fn.has("nvim-0.8") == 1

local function track(ev)
  for i, id in ipairs(running) do
    if id == ev.taskId then
      if ev.type == "done" then
        table.remove(running, i)
      end
      return
    end
  end
  if ev.type ~= "done" then
    table.insert(running, ev.taskId)
  end
end

-- range_text is the text of an LSP range in the buffer of uri (its
-- lines, whole), or nil when no buffer holds it.
local function range_text(uri, range)
  local b = vim.uri_to_bufnr(uri)
  if not (vim.api.nvim_buf_is_loaded(b) and type(range) == "table" and range.start and range["end"]) then
    return nil
  end
  return table.concat(vim.api.nvim_buf_get_lines(b, range.start.line, range["end"].line + 1, false), "\n")
end

-- command_result sees what workspace/executeCommand answered: an
-- agentls.run started from a code action names its task ({taskId}), and
-- its arguments say the prompt (a directive's, "Fix with agent"'s) or the
-- range it comes from, so the transcript heads the task with its request.
local function command_result(err, res, ctx, config)
  local params = type(ctx) == "table" and ctx.params
  if not err and type(res) == "table" and res.taskId and type(params) == "table" and params.command == "agentls.run" then
    local arg = type(params.arguments) == "table" and params.arguments[1] or {}
    local prompt = arg.prompt
    if (prompt == nil or prompt == vim.NIL or prompt == "") and type(arg.textDocument) == "table" then
      prompt = range_text(arg.textDocument.uri, arg.range)
    end
    if type(prompt) == "string" and prompt ~= "" then
      transcript.name_task(res.taskId, prompt)
    end
  end
  local builtin = vim.lsp.handlers["workspace/executeCommand"]
  if builtin then
    return builtin(err, res, ctx, config)
  end
end

local function on_event(err, ev)
  if err or type(ev) ~= "table" then
    return
  end
  if ev.taskId then
    track(ev)
  end
  if ev.sessionId and not transcript.current then
    transcript.current = ev.sessionId
  end
  status.on_event(ev)
  transcript.on_event(ev)
  local opts = { pattern = "AgentlsEvent", modeline = false }
  if autocmd_data then
    opts.data = ev
  end
  vim.api.nvim_exec_autocmds("User", opts)
end

-- show_document opens a file the server points at (window/showDocument),
-- the cursor at its selection's start: Neovim 0.7 has no handler for it
-- and answers -32601 without this one.
local function show_document(_, params)
  if type(params) ~= "table" or not params.uri then
    return { success = false }
  end
  if params.external then
    return { success = false }
  end
  local ok = pcall(vim.cmd, "edit " .. vim.fn.fnameescape(vim.uri_to_fname(params.uri)))
  local sel = type(params.selection) == "table" and params.selection.start
  if ok and type(sel) == "table" and type(sel.line) == "number" then
    -- The cursor at the selection's start (UTF-16 characters to bytes).
    local row = math.min(sel.line + 1, vim.api.nvim_buf_line_count(0))
    local text = vim.api.nvim_buf_get_lines(0, row - 1, row, false)[1] or ""
    local got, col = pcall(vim.str_byteindex, text, math.max(sel.character or 0, 0), true)
    if not got then
      col = #text
    end
    pcall(vim.api.nvim_win_set_cursor, 0, { row, col })
  end
  return { success = ok }
end

--- handlers are the client handlers agentls needs beyond Neovim's own.
function M.handlers()
  local h = {
    ["agent/requestApproval"] = approval.handler,
    ["agent/event"] = on_event,
    ["workspace/executeCommand"] = command_result,
  }
  -- The editor extras an outside MCP agent reaches (agent/editor/*).
  for method, fn in pairs(require("agentls.editor").handlers()) do
    h[method] = fn
  end
  if not vim.lsp.handlers["window/showDocument"] then
    h["window/showDocument"] = show_document
  end
  return h
end

-- warned_missing remembers a server command already reported missing, so a
-- missing binary is one message, not one per buffer.
local warned_missing = {}

local function executable(cmd)
  local prog = type(cmd) == "table" and cmd[1] or nil
  if type(prog) ~= "string" or vim.fn.executable(prog) == 1 then
    return true
  end
  if not warned_missing[prog] then
    warned_missing[prog] = true
    vim.notify(string.format(
      "agentls: %q is not an executable on PATH: install it with `go install github.com/agentls/agentls/cmd/agentls@latest` or set cmd in require('agentls').setup{}",
      prog), vim.log.levels.ERROR)
  end
  return false
end

--- attach attaches agentls to a buffer (the current one by default).
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not executable(M.config.cmd) then
    return nil
  end
  local cfg = M.config
  if not vim.lsp.handlers["window/showDocument"] then
    -- Our own handler answers it (0.7): say so, as 0.10 does for its own.
    cfg = vim.tbl_extend("force", cfg, {
      capabilities = vim.tbl_deep_extend("force", cfg.capabilities or {}, { window = { showDocument = { support = true } } }),
    })
  end
  return lsp.attach(bufnr, cfg, M.handlers())
end

--- setup configures the plugin and attaches agentls to every buffer with a
--- file, those open now and those opened later.
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  if opts and opts.root_markers then
    M.config.root_markers = opts.root_markers
  end
  -- A server that exits leaves no task running: clear the statusline.
  M.config.on_exit = function()
    vim.schedule(function()
      running = {}
      status.forget()
    end)
  end
  local group = vim.api.nvim_create_augroup("agentls", { clear = true })
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
    group = group,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      M.attach(b)
    end
  end
end

local function client_or_warn(bufnr)
  local c = lsp.client(bufnr)
  if not c then
    vim.notify("agentls: no agentls client is running (call require('agentls').setup{} and open a file)",
      vim.log.levels.WARN)
  end
  return c
end

-- range_params turns 1-based lines (and an optional visual selection) into
-- LSP textDocument + range, in the client's offset encoding.
local function range_params(bufnr, client, line1, line2, visual)
  local enc = client.offset_encoding or "utf-16"
  local s, e
  if visual then
    s = vim.api.nvim_buf_get_mark(bufnr, "<")
    e = vim.api.nvim_buf_get_mark(bufnr, ">")
    if s[1] ~= line1 or e[1] ~= line2 then
      s, e = nil, nil
    end
  end
  if not s then
    local last = vim.api.nvim_buf_get_lines(bufnr, line2 - 1, line2, false)[1] or ""
    s = { line1, 0 }
    e = { line2, math.max(#last - 1, 0) }
  end
  return vim.lsp.util.make_given_range_params(s, e, bufnr, enc)
end

-- answer tells how a task ended. An answer that fits the echo area is
-- echoed; a longer one would be cut there, so the chat shows it whole.
local function answer(res, chat)
  local text = vim.trim(res.text or "")
  local stop = res.stopReason or "done"
  local msg = "agentls: " .. stop
  local fits = not text:find("\n") and #msg + #text + 2 < math.max(vim.v.echospace or 0, 20)
  if text ~= "" and (fits or chat) then
    msg = msg .. ": " .. vim.split(text, "\n", { plain = true })[1]
  elseif text ~= "" then
    msg = msg .. ": the answer is in the chat (:AgentChat)"
    if res.sessionId then
      require("agentls.chat").reveal(res.sessionId)
    end
  end
  if res.error and res.error ~= vim.NIL and res.error ~= "" then
    msg = msg .. " (" .. res.error .. ")"
  end
  local level = vim.log.levels.INFO
  if res.stopReason == "error" then
    level = vim.log.levels.ERROR
  elseif res.stopReason ~= "end_turn" then
    level = vim.log.levels.WARN -- max_tokens, refusal, max_iterations: stopped short of an answer
  end
  if chat and level == vim.log.levels.INFO then
    return -- the chat shows the answer as it streams
  end
  vim.notify(msg, level)
end

--- run starts a task (agent/run). opts: prompt, bufnr, line1, line2 (a
--- range, 1-based), visual (the range came from a visual selection),
--- document (false: the prompt is about no document; the chat names one
--- with @file), diagnostics (LSP diagnostics to fix), chat (the chat sent
--- it: it shows the answer), on_result(result, err).
function M.run(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local client = client_or_warn(bufnr)
  if not client then
    return nil
  end
  local params = { prompt = opts.prompt or "", sessionId = transcript.current }
  local attached = vim.api.nvim_buf_is_valid(bufnr) and vim.lsp.buf_is_attached(bufnr, client.id)
  if attached and opts.document ~= false then
    params.textDocument = { uri = vim.uri_from_bufnr(bufnr) }
    if opts.line1 and opts.line2 then
      params.range = range_params(bufnr, client, opts.line1, opts.line2, opts.visual).range
    end
    if opts.diagnostics and #opts.diagnostics > 0 then
      params.diagnostics = opts.diagnostics
    end
  end
  if params.prompt == "" and not params.range then
    -- Nothing to go on: ask for the prompt, then run.
    vim.ui.input({ prompt = "agentls> " }, function(input)
      if input and input ~= "" then
        M.run(vim.tbl_extend("force", opts, { prompt = input, bufnr = bufnr }))
      end
    end)
    return nil
  end
  local id
  local ok, req = lsp.request(client, "agent/run", params, function(err, res)
    pending[id] = nil
    if res and res.sessionId then
      transcript.current = res.sessionId
    end
    if err then
      vim.notify("agentls: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif res then
      answer(res, opts.chat)
    end
    if opts.on_result then
      opts.on_result(res, err)
    end
  end, bufnr)
  if not ok then
    vim.notify("agentls: the agentls client has stopped", vim.log.levels.ERROR)
    return nil
  end
  id = req
  pending[id] = client
  transcript.next_prompt = params.prompt ~= "" and params.prompt or nil
  if M.config.open_transcript and transcript.current then
    transcript.open(transcript.current)
  end
  return id
end

--- cancel cancels the latest running task (agent/cancel), or the pending
--- agent/run requests when no task has reported yet ($/cancelRequest).
function M.cancel(bufnr)
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  local task = running[#running]
  if task then
    lsp.request(client, "agent/cancel", { taskId = task }, function(err)
      if err then
        vim.notify("agentls: agent/cancel: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      end
    end, bufnr)
    return
  end
  local any = false
  for id, c in pairs(pending) do
    lsp.cancel_request(c, id)
    pending[id] = nil
    any = true
  end
  if not any then
    vim.notify("agentls: no task is running", vim.log.levels.INFO)
  end
end

--- approve answers the oldest waiting approval (:AgentApprove).
function M.approve(bufnr)
  approval.approve_waiting(bufnr)
end

--- mcp shows the MCP server list in a floating window (:AgentMcp).
function M.mcp(bufnr, on_done)
  require("agentls.mcp").show(bufnr, on_done)
end

--- prompt runs an MCP server's prompt as a task (:AgentPrompt): text ""
--- picks one and asks its arguments; "SERVER.PROMPT name=value ..." runs it.
--- on_done(result, err) after agentls.prompt answered.
function M.prompt(bufnr, text, on_done)
  require("agentls.prompt").run(bufnr, text, on_done)
end

--- transcript opens the live transcript of the current session; with file =
--- true it asks the server to open the Markdown transcript (agentls.transcript).
function M.transcript(bufnr, file)
  if file or not transcript.current then
    local client = client_or_warn(bufnr)
    if not client then
      return
    end
    local args = transcript.current and { transcript.current } or {}
    lsp.request(client, "workspace/executeCommand", { command = "agentls.transcript", arguments = args },
      function(err)
        if err then
          vim.notify("agentls: agentls.transcript: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        end
      end, bufnr)
    return
  end
  return transcript.open(transcript.current)
end

--- new_chat starts an empty session (agent/newChat); the next :AgentRun uses it.
function M.new_chat(bufnr, on_done)
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  lsp.request(client, "agent/newChat", { sessionId = transcript.current }, function(err, res)
    if err then
      vim.notify("agentls: agent/newChat: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    transcript.current = res and res.sessionId or nil
    if transcript.current then
      transcript.buffer(transcript.current)
    end
    vim.notify("agentls: new chat " .. tostring(transcript.current), vim.log.levels.INFO)
    if on_done then
      on_done(transcript.current)
    end
  end, bufnr)
end

--- compact compacts the current session (agent/compact): old tool results
--- are elided and older turns summarized by the model, so what is sent next
--- fits its window. The session file keeps everything.
function M.compact(bufnr, on_done)
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  if not transcript.current then
    vim.notify("agentls: nothing to compact yet: run a task first", vim.log.levels.WARN)
    return
  end
  lsp.request(client, "agent/compact", { sessionId = transcript.current }, function(err, res)
    if err then
      vim.notify("agentls: agent/compact: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    vim.notify(string.format("agentls: compacted %s: about %d -> %d tokens sent next (the session file keeps everything)",
      res.sessionId, res.tokensBefore, res.tokensAfter), vim.log.levels.INFO)
    if on_done then
      on_done(res)
    end
  end, bufnr)
end

--- chat opens the chat (:AgentChat) of the current session, started when
--- there is none, and sends text when given; on_open(session) once shown.
function M.chat(text, on_open)
  require("agentls.chat").open(text, on_open)
end

--- sessions lists the past sessions and reopens the one picked in the chat
--- (:AgentSessions, /sessions); on_done(session) once it shows.
function M.sessions(on_done)
  require("agentls.chat").pick_session(on_done)
end

--- modes are agentls's modes, in the order a picker lists them.
M.modes = { "plan", "ask", "auto-edit", "autopilot" }

--- set_mode sets the mode of the current session (agent/setMode), or of
--- the sessions to come when there is none yet (:AgentMode); mode nil picks
--- one with vim.ui.select. on_done(result) once agentls answered.
function M.set_mode(mode, bufnr, on_done)
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  local function set(m)
    if not m then
      return
    end
    lsp.request(client, "agent/setMode", { mode = m, sessionId = transcript.current }, function(err, res)
      if err then
        vim.notify("agentls: agent/setMode: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        return
      end
      status.set_mode(res.mode)
      vim.notify("agentls: mode " .. tostring(res.mode), vim.log.levels.INFO)
      if on_done then
        on_done(res)
      end
    end, bufnr)
  end
  if mode and mode ~= "" then
    return set(mode)
  end
  vim.ui.select(M.modes, { prompt = "agentls mode (now " .. status.mode() .. ")" }, set)
end

--- set_model switches the current session to a model profile for its
--- next turn (agent/setModel), or the sessions to come when there is none
--- yet (:AgentModel); profile nil picks one of agent/status's profiles with
--- vim.ui.select. on_done(result) once agentls answered.
function M.set_model(profile, bufnr, on_done)
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  local function set(p)
    if not p then
      return
    end
    lsp.request(client, "agent/setModel", { profile = p, sessionId = transcript.current }, function(err, res)
      if err then
        vim.notify("agentls: agent/setModel: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        return
      end
      local m = res.model or {}
      vim.notify("agentls: model " .. tostring(m.profile) .. " (" .. tostring(m.name) .. ") from the next turn", vim.log.levels.INFO)
      if on_done then
        on_done(res)
      end
    end, bufnr)
  end
  if profile and profile ~= "" then
    return set(profile)
  end
  lsp.request(client, "agent/status", { sessionId = transcript.current }, function(err, res)
    if err then
      vim.notify("agentls: agent/status: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local now = res.model and res.model.profile or "default"
    local usable = {}
    for _, m in ipairs(res.profiles or {}) do
      if not m.error or m.error == "" then
        table.insert(usable, m)
      end
    end
    vim.ui.select(usable, {
      prompt = "agentls model (now " .. now .. ")",
      format_item = function(m)
        return m.profile .. "  " .. m.provider .. " " .. m.name
      end,
    }, function(m)
      set(m and m.profile)
    end)
  end, bufnr)
end

--- rules lists the saved "always allow" rules of the workspace
--- (agent/rules) and offers to forget one (agent/rules/revoke) with
--- vim.ui.select (:AgentRules). on_done(revoked or nil) at the end.
function M.rules(bufnr, on_done)
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  lsp.request(client, "agent/rules", {}, function(err, res)
    if err then
      vim.notify("agentls: agent/rules: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local rules = res and res.rules or {}
    if #rules == 0 then
      vim.notify("agentls: no saved rules in this workspace (a card's \"Always allow\" saves one)", vim.log.levels.INFO)
      if on_done then
        on_done(nil)
      end
      return
    end
    vim.ui.select(rules, {
      prompt = "agentls rules (pick one to forget it)",
      format_item = function(r)
        return r.id .. "  (" .. r.workspace .. ")"
      end,
    }, function(r)
      if not r then
        if on_done then
          on_done(nil)
        end
        return
      end
      lsp.request(client, "agent/rules/revoke", { id = r.id, workspace = r.workspace }, function(rerr, rres)
        if rerr then
          vim.notify("agentls: agent/rules/revoke: " .. (rerr.message or vim.inspect(rerr)), vim.log.levels.ERROR)
          return
        end
        vim.notify("agentls: forgot the rule " .. r.id, vim.log.levels.INFO)
        if on_done then
          on_done(rres)
        end
      end, bufnr)
    end)
  end, bufnr)
end

--- rewind puts the files of a turn of the current session and of the
--- later turns back as they were before it (agent/rewind), through the
--- buffers (workspace/applyEdit: `u` brings the agent's text back), and the
--- next prompt continues from before that turn (:AgentRewind). turn nil
--- picks one with vim.ui.select from agent/turns. Files changed outside
--- agentls since are named and kept unless the user picks "Overwrite".
--- on_done(result or nil) at the end.
function M.rewind(turn, bufnr, on_done)
  on_done = on_done or function() end
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  local session = transcript.current
  if not session then
    vim.notify("agentls: nothing to rewind yet: run a task first", vim.log.levels.WARN)
    return on_done(nil)
  end
  local function rewind(n, force)
    lsp.request(client, "agent/rewind", { sessionId = session, turn = n, force = force or nil }, function(err, res)
      if err then
        vim.notify("agentls: agent/rewind: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        return on_done(nil)
      end
      local changed = res.changed or {}
      if #changed > 0 and not force then
        local choices = { "Overwrite them", "Keep them (nothing is restored)" }
        return vim.ui.select(choices, {
          prompt = string.format("agentls: going back to before turn %d would overwrite %d file(s) changed outside agentls since: %s",
            n, #changed, table.concat(changed, ", ")),
          kind = "agentls.rewind_changed",
        }, function(choice)
          if choice == choices[1] then
            return rewind(n, true)
          end
          vim.notify("agentls: kept the changed files: nothing was rewound", vim.log.levels.INFO)
          on_done(res)
        end)
      end
      local msg = "agentls: " .. res.message
      for _, f in ipairs(res.notRestored or {}) do
        msg = msg .. "\n  not restored " .. f.path .. ": " .. f.why
      end
      vim.notify(msg, #(res.notRestored or {}) > 0 and vim.log.levels.WARN or vim.log.levels.INFO)
      on_done(res)
    end, bufnr)
  end
  if turn and turn ~= "" then
    local n = tonumber(turn)
    if not n then
      vim.notify("agentls: :AgentRewind takes a turn number (none: pick one), not " .. tostring(turn), vim.log.levels.ERROR)
      return on_done(nil)
    end
    return rewind(n)
  end
  lsp.request(client, "agent/turns", { sessionId = session }, function(err, res)
    if err then
      vim.notify("agentls: agent/turns: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return on_done(nil)
    end
    local turns = res and res.turns or {}
    if #turns == 0 then
      vim.notify("agentls: no turn to rewind in session " .. session, vim.log.levels.INFO)
      return on_done(nil)
    end
    vim.ui.select(turns, {
      prompt = "agentls: go back to before which turn?",
      kind = "agentls.turn",
      format_item = function(t)
        return string.format("%d. %s (%d file(s))", t.turn, t.prompt, #(t.files or {}))
      end,
    }, function(t)
      if not t then
        return on_done(nil)
      end
      rewind(t.turn)
    end)
  end, bufnr)
end

--- statusline is a statusline component: "" when idle, else what the agent
--- is doing. Use it as %{v:lua.require'agentls'.statusline()}.
function M.statusline()
  return status.text()
end

--- usage is a statusline component of the last turn's tokens, cache share
--- and cost, and the session's so far ("" before a turn ended). Use it as
--- %{v:lua.require'agentls'.usage()}.
function M.usage()
  return status.usage()
end

--- session is the id of the session the commands continue (or nil).
function M.session()
  return transcript.current
end

--- transcript_buffer returns the live transcript buffer of a session, or nil.
function M.transcript_buffer(session)
  return transcript.find(session or transcript.current)
end

return M
