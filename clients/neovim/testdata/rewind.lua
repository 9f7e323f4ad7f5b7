-- Two tasks write greeting.txt (open in the buffer) and notes.txt (only on
-- disk); the user changes notes.txt on disk; :AgentRewind lists the turns
-- (the picker is answered with turn 1), names notes.txt as changed outside
-- agentls (first kept, then overwritten), and the buffer goes back through
-- workspace/applyEdit: `u` brings the agent's text back.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local agentls = require("agentls")
  local bufnr = vim.api.nvim_get_current_buf()
  lib.capture_notify()
  R.cards = 0
  R.turn_labels = {}
  R.changed_prompts = {}
  local overwrite = false
  vim.ui.select = function(items, opts, on_choice)
    if opts.kind == "agentls.approval" or opts.agentls_approval then
      R.cards = R.cards + 1
      for _, o in ipairs(items) do
        if o.optionId == "allow_once" then
          return on_choice(o)
        end
      end
      return on_choice(nil)
    elseif opts.kind == "agentls.turn" then
      for _, t in ipairs(items) do
        table.insert(R.turn_labels, opts.format_item(t))
      end
      return on_choice(items[1])
    elseif opts.kind == "agentls.rewind_changed" then
      table.insert(R.changed_prompts, opts.prompt)
      return on_choice(overwrite and items[1] or items[2])
    end
    on_choice(nil)
  end
  lib.wait_attached(bufnr)

  local function run(prompt)
    return lib.run(bufnr, prompt)
  end
  R.first = run("first turn")
  R.second = run("second turn")
  R.lines_after_turns = lib.lines(bufnr)
  local notes = lib.env("AGENTLS_E2E_WORKSPACE") .. "/notes.txt"
  local f = assert(io.open(notes, "w"))
  f:write("notes: changed by the user\n")
  f:close()

  local res1
  agentls.rewind(nil, bufnr, function(r)
    res1 = r or {}
  end)
  lib.wait(20000, function()
    return res1 ~= nil
  end, "the first :AgentRewind")
  R.kept = res1
  R.lines_kept = lib.lines(bufnr)

  overwrite = true
  -- A command the user types ends the undo block of the agent's edits;
  -- setting undolevels does the same here.
  vim.o.undolevels = vim.o.undolevels
  local res2
  agentls.rewind(nil, bufnr, function(r)
    res2 = r or {}
  end)
  lib.wait(20000, function()
    return res2 ~= nil
  end, "the second :AgentRewind")
  R.rewound = res2
  R.lines_rewound = lib.lines(bufnr)
  vim.cmd("normal! u")
  R.lines_undone = lib.lines(bufnr)
  R.modified = vim.api.nvim_buf_get_option(bufnr, "modified")

  -- The command itself, with a turn the session no longer has.
  vim.cmd("AgentRewind 5")
  lib.wait(10000, function()
    for _, m in ipairs(R.notify) do
      if m:find("agent/rewind", 1, true) then
        return true
      end
    end
    return false
  end, ":AgentRewind 5's error")
end)
