-- The editor as an MCP server: the buffer gets unsaved text and a
-- selection (a code action request carries it, as every LSP editor's
-- does), then the script signals the Go test, which drives the session
-- with the official MCP SDK's client, and answers each approval card in
-- the order AGENTLS_E2E_ANSWERS lists, until the test says it is done.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local lsp = require("agentls.lsp")
  local bufnr = vim.api.nvim_get_current_buf()
  vim.notify = function() end
  local answers = vim.split(lib.env("AGENTLS_E2E_ANSWERS"), ",")
  R.cards = {}
  R.options = {}
  vim.ui.select = function(items, opts, on_choice)
    table.insert(R.cards, opts.prompt)
    local ids = {}
    for _, o in ipairs(items) do
      table.insert(ids, tostring(o.optionId))
    end
    table.insert(R.options, table.concat(ids, ","))
    local want = answers[#R.cards] or "reject_once"
    for _, o in ipairs(items) do
      if o.optionId == want then
        return on_choice(o)
      end
    end
    on_choice(nil)
  end
  lib.wait_attached(bufnr)
  local client = lsp.client(bufnr)

  -- Unsaved text, then a selection of line 1 with a diagnostic there.
  vim.api.nvim_buf_set_lines(bufnr, 0, 1, false, { "say hello, unsaved" })
  local answered = false
  client.request("textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = 0, character = 4 }, ["end"] = { line = 0, character = 9 } },
    context = { diagnostics = { { range = { start = { line = 0, character = 0 }, ["end"] = { line = 0, character = 3 } },
      message = "greeting is too quiet", severity = 2, source = "e2e" } } },
  }, function()
    answered = true
  end, bufnr)
  lib.wait(20000, function()
    return answered
  end, "the code action's answer")

  -- A diagnostic of another source than agentls (a linter's, in a
  -- namespace of the test's own), with a character after a multi-byte
  -- one (vim.diagnostic counts bytes, LSP UTF-16 code units).
  local ns = vim.api.nvim_create_namespace("agentls-e2e-linter")
  vim.diagnostic.set(ns, bufnr, { { lnum = 0, col = 4, end_lnum = 0, end_col = 9, severity = vim.diagnostic.severity.WARN,
    message = "hello is lowercase", source = "e2e-linter", code = "L42" } })
  -- A clean file in a second tabpage (for list_tabs' group and a
  -- close_tab that closes), with a diagnostic past "ï" (2 bytes, 1 UTF-16 unit).
  local ws = lib.env("AGENTLS_E2E_WORKSPACE")
  vim.cmd("tabnew " .. vim.fn.fnameescape(ws .. "/clean.txt"))
  local clean = vim.api.nvim_get_current_buf()
  vim.diagnostic.set(ns, clean, { { lnum = 0, col = 7, end_lnum = 0, end_col = 12, severity = vim.diagnostic.severity.HINT,
    message = "cafe needs its accent", source = "e2e-linter" } })
  vim.cmd("tabfirst")
  lib.wait_attached(clean)

  local dir = lib.env("AGENTLS_E2E_DIR")
  local f = assert(io.open(dir .. "/ready", "w"))
  f:write("ready")
  f:close()
  lib.wait(240000, function()
    return vim.loop.fs_stat(dir .. "/done") ~= nil
  end, "the Go test to finish driving the MCP server")
  R.lines = lib.lines(bufnr)
  R.shown = vim.api.nvim_buf_get_name(vim.api.nvim_get_current_buf())
  R.cursor = vim.api.nvim_win_get_cursor(0)
  R.clean_listed = vim.api.nvim_buf_is_valid(clean) and vim.bo[clean].buflisted
  R.tabpages = #vim.api.nvim_list_tabpages()
  -- The terminals agentls made are buffers no window shows.
  R.terminal_windows = 0
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.bo[vim.api.nvim_win_get_buf(win)].buftype == "terminal" then
      R.terminal_windows = R.terminal_windows + 1
    end
  end
end)
