-- The chat (:AgentChat) as a user drives it: open it, type a prompt naming
-- @file in the prompt window and send it with <CR>; the write's card is
-- answered, the edit lands in the buffer, the answer streams into the
-- conversation; a follow-up asks about that answer; a third turn is
-- cancelled with <C-c> while the model streams; the chat is closed and
-- :AgentChat shows the same conversation again. AGENTLS_E2E_PHASE=reopen
-- is a later Neovim on the same state: :AgentSessions picks the earlier
-- session, the conversation is shown as agentls stored it, and a
-- prompt continues it.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local file = vim.api.nvim_get_current_buf()
  lib.capture_notify()
  R.cards = {}
  R.pickers = {}
  local pick_session = os.getenv("AGENTLS_E2E_SESSION")
  vim.ui.select = function(items, opts, on_choice)
    table.insert(R.pickers, opts.kind or "?")
    if opts.kind == "agentls.approval" then
      table.insert(R.cards, opts.prompt)
      for _, o in ipairs(items) do
        if o.optionId == "allow_once" then
          return on_choice(o)
        end
      end
    elseif opts.kind == "agentls.session" then
      R.session_labels = {}
      local chosen
      for _, s in ipairs(items) do
        table.insert(R.session_labels, opts.format_item(s))
        if s.sessionId == pick_session then
          chosen = s
        end
      end
      return on_choice(chosen)
    end
    on_choice(nil)
  end
  lib.wait_attached(file)

  local function conv()
    local b = agentls.transcript_buffer()
    return b and table.concat(lib.lines(b), "\n") or ""
  end
  -- say types text into the prompt window and presses <CR> in normal mode.
  local function say(text)
    local pb = require("agentls.chat").prompt_buffer()
    if vim.api.nvim_get_current_buf() ~= pb then
      lib.fail("the cursor is not in the prompt window but in " .. vim.api.nvim_buf_get_name(0))
    end
    vim.api.nvim_buf_set_lines(pb, 0, -1, false, vim.split(text, "\n", { plain = true }))
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<CR>", true, false, true), "x", false)
    R.prompt_after_send = lib.lines(pb)
  end
  local function count(s, pat)
    local n = 0
    for _ in s:gmatch(pat) do
      n = n + 1
    end
    return n
  end
  local function turn_ends(n, stop)
    lib.wait(30000, function()
      return count(conv(), "\n%-%-%- " .. stop) + (stop ~= "end_turn" and count(conv(), "\n%-%-%- end_turn") or 0) >= n
    end, function()
      return "turn " .. n .. " to end " .. stop .. "; the conversation:\n" .. conv()
    end)
  end

  if os.getenv("AGENTLS_E2E_PHASE") == "reopen" then
    vim.cmd("AgentSessions")
    lib.wait(20000, function()
      return agentls.session() == pick_session and conv():find("rewrite @file", 1, true) ~= nil
    end, function()
      return "the picked session's conversation; it shows:\n" .. conv()
    end)
    R.reopened = conv()
    R.tab_windows = #vim.api.nvim_tabpage_list_wins(0)
    say("and before that?")
    lib.wait(30000, function()
      return conv():find("We talked about greeting.txt.", 1, true) ~= nil and conv():find("\n%-%-%- end_turn%s*$") ~= nil
    end, function()
      return "the answer in the reopened session:\n" .. conv()
    end)
    R.conversation = conv()
    R.session = agentls.session()
    return
  end

  vim.cmd("AgentChat")
  lib.wait(20000, function()
    return agentls.session() ~= nil and agentls.transcript_buffer() ~= nil
      and vim.api.nvim_get_current_buf() == require("agentls.chat").prompt_buffer()
  end, "the chat to open with the cursor in its prompt")
  R.session = agentls.session()
  R.windows = #vim.api.nvim_tabpage_list_wins(0)
  R.conversation_name = vim.api.nvim_buf_get_name(agentls.transcript_buffer())

  -- Turn 1: a tool call, its approval, the proposed edit.
  say("rewrite @file as a greeting")
  turn_ends(1, "end_turn")
  R.lines = lib.lines(file)
  R.after_first = conv()
  local cw
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(w) == agentls.transcript_buffer() then
      cw = w
    end
  end
  -- Each call's arguments and result fold under its line.
  vim.api.nvim_win_call(cw, function()
    local first = vim.fn.search("^  │ ", "nw")
    R.detail_line = vim.fn.getline(first)
    R.detail_folded = vim.fn.foldclosed(first) ~= -1
  end)

  -- Turn 2: a follow-up that refers to the first answer.
  say("what did you just rewrite?")
  turn_ends(2, "end_turn")

  -- Turn 3: cancelled with <C-c> in the prompt while the model streams.
  say("take your time")
  lib.wait(30000, function()
    return conv():find("## take your time\n\nLet", 1, true) ~= nil
  end, function()
    return "the third turn's streamed text; the conversation:\n" .. conv()
  end)
  R.statusline_running = agentls.statusline()
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<C-c>", true, false, true), "x", false)
  turn_ends(3, "cancelled")
  lib.wait(5000, function()
    return agentls.statusline() == ""
  end, "the statusline to go idle")

  -- Closed and shown again: the same conversation.
  local before = conv()
  require("agentls.chat").close()
  R.windows_closed = #vim.api.nvim_tabpage_list_wins(0)
  vim.cmd("AgentChat")
  R.windows_reopened = #vim.api.nvim_tabpage_list_wins(0)
  R.same_after_reopen = conv() == before and agentls.session() == R.session
  R.conversation = conv()
end)
