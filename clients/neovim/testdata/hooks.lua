-- [hooks] seen from the editor: a task whose model runs a command that the
-- user's before_tool hook denies (no card is shown; the transcript shows
-- the hook's reason), whose after_tool hook adds a line to the result, and
-- whose turn_end hook's output arrives as a status line.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local bufnr = vim.api.nvim_get_current_buf()
  lib.capture_notify()
  R.cards = 0
  vim.ui.select = function(items, opts, on_choice)
    R.cards = R.cards + 1
    on_choice(nil)
  end
  lib.wait_attached(bufnr)
  R.result = lib.run(bufnr, "clean the build")
  local function conv()
    local b = agentls.transcript_buffer()
    return b and table.concat(lib.lines(b), "\n") or ""
  end
  lib.wait(10000, function()
    return conv():find("--- end_turn", 1, true) ~= nil
  end, function()
    return "the end of the turn in the transcript; it shows:\n" .. conv()
  end)
  R.transcript = conv()
end)
