-- What a new user trips over, fixed: a task started from a code action
-- ("agentls: Run selection as prompt") shows its prompt in the live
-- transcript, and :AgentRun's answer, too long for the echo area, opens
-- whole in the chat's conversation beside the file (the cursor stays).
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local file = vim.api.nvim_get_current_buf()
  lib.capture_notify()
  vim.ui.select = function(items, _, on_choice)
    for _, item in ipairs(items) do
      if lib.code_action_title(item) == "agentls: Run selection as prompt" then
        return on_choice(item)
      end
    end
    on_choice(nil)
  end
  lib.wait_attached(file)
  local function conv()
    local b = agentls.transcript_buffer()
    return b and table.concat(lib.lines(b), "\n") or ""
  end

  local line = vim.api.nvim_buf_get_lines(file, 0, 1, false)[1]
  if vim.fn.has("nvim-0.8") == 1 then
    vim.lsp.buf.code_action({ range = { start = { 1, 0 }, ["end"] = { 1, #line - 1 } } })
  else
    vim.lsp.buf.range_code_action({}, { 1, 0 }, { 1, #line - 1 })
  end
  lib.wait(30000, function()
    return conv():find("--- end_turn", 1, true) ~= nil and conv():find("\n## say hello to the world\n", 1, true) ~= nil
  end, function()
    return "the code action's task under its prompt; the transcript:\n" .. conv()
  end)
  R.code_action_transcript = conv()

  vim.cmd("AgentRun tell me more")
  lib.wait(30000, function()
    for _, m in ipairs(R.notify) do
      if m:find("agentls: end_turn", 1, true) == 1 then
        return true
      end
    end
    return false
  end, "the :AgentRun result")
  R.current_buffer = vim.api.nvim_get_current_buf() == file
  R.shown = {}
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    table.insert(R.shown, vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)))
  end
  R.conversation = conv()
end)
