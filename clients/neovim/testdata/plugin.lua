-- The plugin, driven like a user: setup{} in the init attached agentls to the
-- file on the command line; select line 1, :'<,'>AgentRun, answer the write
-- approval (vim.ui.select, the user picks "Allow once"), wait for the edit in
-- the buffer, the task result and the streamed text in the live transcript;
-- then :AgentTranscript, :AgentTranscript!, :AgentMcp, :AgentCompact and :AgentNewChat.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local bufnr = vim.api.nvim_get_current_buf()
  local original = table.concat(lib.lines(bufnr), "\n")
  R.version = tostring(vim.version().major) .. "." .. tostring(vim.version().minor)

  R.notify = {}
  vim.notify = function(msg)
    table.insert(R.notify, tostring(msg))
  end
  R.approvals = {}
  vim.ui.select = function(items, opts, on_choice)
    local names = {}
    for _, o in ipairs(items) do
      table.insert(names, opts.format_item and opts.format_item(o) or tostring(o))
    end
    table.insert(R.approvals, {
      kind = opts.kind,
      prompt = opts.prompt,
      options = names,
      statusline = agentls.statusline(),
    })
    -- Answer later, as a picker with its own window would: the handler must
    -- wait for the answer (a coroutine on 0.10, vim.wait on 0.7).
    vim.defer_fn(function()
      for _, o in ipairs(items) do
        if o.optionId == "allow_once" then
          return on_choice(o)
        end
      end
      on_choice(nil)
    end, 50)
  end

  lib.wait(20000, function()
    local c = require("agentls.lsp").client(bufnr)
    return c ~= nil and c.server_capabilities ~= nil and c.server_capabilities.executeCommandProvider ~= nil
      and vim.lsp.buf_is_attached(bufnr, c.id)
  end, "setup{} to attach agentls to the buffer")
  R.attached = #require("agentls.lsp").clients(bufnr)

  vim.cmd("normal! ggV\27")
  vim.cmd("'<,'>AgentRun make it a greeting")

  local function changed()
    return table.concat(lib.lines(bufnr), "\n") ~= original
  end
  local function finished()
    for _, m in ipairs(R.notify) do
      for _, r in ipairs({ "end_turn", "cancelled", "error", "max_iterations" }) do
        if m:find("agentls: " .. r, 1, true) == 1 then
          return true
        end
      end
    end
    return false
  end
  lib.wait(45000, function()
    return changed() or finished()
  end, "the agent's edit to land in the buffer")
  lib.wait(30000, finished, "the agent/run result")
  if not changed() then
    lib.fail("the task ended (" .. table.concat(R.notify, "; ") .. ") and the buffer is unchanged")
  end
  R.lines = lib.lines(bufnr)
  R.approval_wait = require("agentls.approval").last_wait
  R.session = agentls.session()
  lib.wait(10000, function()
    local b = agentls.transcript_buffer()
    return b and table.concat(lib.lines(b), "\n"):find("\n%-%-%- ") ~= nil
  end, "the done event in the transcript buffer")
  R.transcript = lib.lines(agentls.transcript_buffer())
  R.statusline_after = agentls.statusline()

  vim.cmd("AgentTranscript")
  R.transcript_window = vim.api.nvim_buf_get_name(vim.api.nvim_get_current_buf())
  vim.cmd("wincmd p")

  -- :AgentTranscript! asks the server for the Markdown file; it arrives as
  -- window/showDocument (the plugin's own handler on 0.7, Neovim's on 0.10).
  vim.cmd("AgentTranscript!")
  lib.wait(10000, function()
    return vim.api.nvim_buf_get_name(0):match("%.md$") ~= nil
  end, "window/showDocument to open the Markdown transcript")
  R.transcript_file = vim.api.nvim_buf_get_name(0)
  R.transcript_file_lines = lib.lines(0)
  vim.cmd("buffer " .. bufnr)

  vim.cmd("AgentMcp")
  local float
  lib.wait(10000, function()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= "" then
        float = { lines = lib.lines(vim.api.nvim_win_get_buf(w)), focused = w == vim.api.nvim_get_current_win() }
        return true
      end
    end
    return false
  end, ":AgentMcp's floating window")
  R.mcp = float
  vim.cmd("close")

  local compacted
  vim.cmd("AgentCompact")
  agentls.compact(bufnr, function(r)
    compacted = r
  end)
  lib.wait(10000, function()
    return compacted ~= nil
  end, "agent/compact")
  R.compacted = compacted

  local new_session
  agentls.new_chat(bufnr, function(s)
    new_session = s
  end)
  lib.wait(10000, function()
    return new_session ~= nil
  end, "agent/newChat")
  R.new_session = new_session
end)
