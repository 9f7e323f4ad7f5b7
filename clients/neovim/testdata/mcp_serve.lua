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
  vim.ui.select = function(items, opts, on_choice)
    table.insert(R.cards, opts.prompt)
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

  local dir = lib.env("AGENTLS_E2E_DIR")
  local f = assert(io.open(dir .. "/ready", "w"))
  f:write("ready")
  f:close()
  lib.wait(240000, function()
    return vim.loop.fs_stat(dir .. "/done") ~= nil
  end, "the Go test to finish driving the MCP server")
  R.lines = lib.lines(bufnr)
  R.shown = vim.api.nvim_buf_get_name(vim.api.nvim_get_current_buf())
end)
