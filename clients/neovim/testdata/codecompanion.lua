-- CodeCompanion.nvim as the ACP client of agentls, set up with the
-- README's adapter snippet (AGENTLS_E2E_SNIPPET) and driven as a user does:
-- each prompt typed in the chat buffer and sent with <CR>, once the chat
-- has connected: an edit card accepted with its key, a follow-up, an edit
-- rejected, and a turn stopped with q while the model streams.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  vim.opt.runtimepath:prepend(lib.env("AGENTLS_E2E_PLENARY"))
  vim.opt.runtimepath:prepend(lib.env("AGENTLS_E2E_CODECOMPANION"))
  vim.cmd("runtime! plugin/codecompanion.lua")
  -- What it does goes to its log (the Go test shows it on failure).
  local setup = require("codecompanion").setup
  require("codecompanion").setup = function(opts)
    opts.opts = vim.tbl_extend("force", opts.opts or {}, { log_level = "DEBUG" })
    return setup(opts)
  end
  dofile(lib.env("AGENTLS_E2E_SNIPPET"))
  local file = vim.api.nvim_get_current_buf()
  lib.capture_notify()

  local cc = require("codecompanion")
  cc.chat()
  local chat = cc.last_chat()
  if not chat then
    lib.fail("CodeCompanion opened no chat")
  end
  R.adapter = chat.adapter and chat.adapter.name
  local function text()
    return table.concat(lib.lines(chat.bufnr), "\n")
  end
  -- press types keys in the chat's window (its keymaps, and the card's,
  -- are the chat buffer's).
  local function press(keys)
    local w = vim.fn.bufwinid(chat.bufnr)
    if w == -1 then
      lib.fail("the chat buffer is in no window")
    end
    vim.api.nvim_set_current_win(w)
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), "x", false)
  end
  -- ask types a prompt at the end of the chat buffer and sends it (<CR>).
  local function ask(prompt)
    local n = vim.api.nvim_buf_line_count(chat.bufnr)
    vim.api.nvim_buf_set_lines(chat.bufnr, n, n, false, { prompt })
    press("<CR>")
  end
  local function wait_for(s, what)
    lib.wait(40000, function()
      return text():find(s, 1, true) ~= nil
    end, function()
      return what .. "; the chat buffer:\n" .. text()
    end)
  end
  local function idle()
    lib.wait(40000, function()
      return chat.current_request == nil
    end, function()
      return "the turn to end; the chat buffer:\n" .. text()
    end)
  end
  -- The chat connects as it opens; a user types once it has (a prompt
  -- sent before makes CodeCompanion start a second connection beside it).
  lib.wait(30000, function()
    local c = chat.acp_connection
    return c ~= nil and c:is_ready() and c.session_id ~= nil
  end, "the chat's ACP connection and session")
  local keys = require("codecompanion.interactions.chat.tools.labels").keymaps()
  R.keys = keys

  ask("rewrite greeting.txt as a greeting")
  wait_for("Please select an option:", "the edit's permission card")
  R.card_first = text()
  press(keys.accept)
  wait_for("I rewrote greeting.txt as a greeting.", "the answer after the accepted edit")
  idle()
  R.lines = lib.lines(file)

  ask("what did you just rewrite?")
  wait_for("It now reads", "the follow-up's answer")
  idle()

  ask("now shout it")
  lib.wait(40000, function()
    local _, n = text():gsub("Please select an option:", "")
    return n >= 2
  end, function()
    return "the second edit's card; the chat buffer:\n" .. text()
  end)
  press(keys.reject)
  wait_for("I will leave it as it is.", "the answer after the rejected edit")
  idle()

  ask("take your time")
  wait_for("Let", "the streamed text of the slow turn")
  press("q") -- its stop key
  idle()
  R.chat = text()
  R.after = lib.lines(file)
end)
