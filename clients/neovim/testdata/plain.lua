-- Plain vim.lsp config, no plugin: the way a user without the agentls plugin
-- runs agentls. Starts the client (start_client + buf_attach_client on 0.7,
-- vim.lsp.start on 0.10), asks for code actions on line 1, runs
-- "agentls: Run selection as prompt", answers the write approval that arrives
-- as window/showMessageRequest with "Allow once" (the user), and waits for the
-- edit to land in the buffer and the task to end.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  local bin = lib.env("AGENTLS_E2E_BIN")
  local ws = lib.env("AGENTLS_E2E_WORKSPACE")
  local bufnr = vim.api.nvim_get_current_buf()
  local original = table.concat(lib.lines(bufnr), "\n")
  R.version = tostring(vim.version().major) .. "." .. tostring(vim.version().minor)

  -- The user's side: what they would see and answer.
  R.approval_messages = {}
  vim.lsp.handlers["window/showMessageRequest"] = function(_, params)
    table.insert(R.approval_messages, params.message)
    for _, a in ipairs(params.actions or {}) do
      if a.title == "Allow once" then
        return a
      end
    end
    return vim.NIL
  end
  R.messages = {}
  vim.lsp.handlers["window/showMessage"] = function(_, params)
    table.insert(R.messages, params.message)
  end
  R.progress = {}
  local progress = vim.lsp.handlers["$/progress"]
  vim.lsp.handlers["$/progress"] = function(err, params, ctx, config)
    if params and type(params.value) == "table" then
      table.insert(R.progress, params.value.kind .. ": " .. tostring(params.value.title or params.value.message or ""))
    end
    return progress(err, params, ctx, config)
  end
  R.actions = {}
  vim.ui.select = function(items, opts, on_choice)
    for _, item in ipairs(items) do
      table.insert(R.actions, lib.code_action_title(item))
    end
    for _, item in ipairs(items) do
      if lib.code_action_title(item) == "agentls: Run selection as prompt" then
        return on_choice(item)
      end
    end
    on_choice(nil)
  end

  local config = { name = "agentls", cmd = { bin, "serve" }, root_dir = ws }
  local client_id
  if vim.lsp.start then
    client_id = vim.lsp.start(config)
  else
    client_id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(bufnr, client_id)
  end
  if not client_id then
    lib.fail("the client did not start")
  end
  lib.wait(20000, function()
    local c = vim.lsp.get_client_by_id(client_id)
    return c and c.server_capabilities and c.server_capabilities.executeCommandProvider ~= nil
  end, "initialize")

  local line = vim.api.nvim_buf_get_lines(bufnr, 0, 1, false)[1]
  if vim.fn.has("nvim-0.8") == 1 then
    vim.lsp.buf.code_action({ range = { start = { 1, 0 }, ["end"] = { 1, #line - 1 } } })
  else
    vim.lsp.buf.range_code_action({}, { 1, 0 }, { 1, #line - 1 })
  end

  local function changed()
    return table.concat(lib.lines(bufnr), "\n") ~= original
  end
  lib.wait(45000, function()
    return changed() or #R.messages > 0
  end, "the agent's edit to land in the buffer")
  lib.wait(30000, function()
    return #R.messages > 0
  end, "the window/showMessage summary of the finished task")
  if not changed() then
    lib.fail("the task ended (" .. R.messages[1] .. ") and the buffer is unchanged")
  end
  lib.wait(10000, function()
    for _, p in ipairs(R.progress) do
      if p:match("^end") then
        return true
      end
    end
    return false
  end, "$/progress end")
  R.lines = lib.lines(bufnr)
  R.modified = vim.bo[bufnr].modified
end)
