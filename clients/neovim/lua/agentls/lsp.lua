-- agentls.lsp: starting agentls and attaching it to buffers, on Neovim 0.7
-- (start_client + buf_attach_client) and 0.10+ (vim.lsp.start), one client
-- per workspace root. Everything version-dependent about vim.lsp lives here.
local M = {}

local uv = vim.uv or vim.loop

-- has_start: vim.lsp.start exists from 0.8; 0.7 needs start_client.
local has_start = type(vim.lsp.start) == "function"
-- Neovim 0.11 turned client.request into a method (client:request).
local method_calls = vim.fn.has("nvim-0.11") == 1

-- clients_by_root is the 0.7 path's memory of which client serves a root.
local clients_by_root = {}

--- request sends an LSP request on a client, whatever the Neovim version.
function M.request(client, method, params, handler, bufnr)
  if method_calls then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- flush makes Neovim send the didChange it holds back (debounced) now: it
--- sends them before any other notification, so a notification agentls
--- ignores ($/agentls/flush) brings the server up to date with the buffers.
function M.flush(client)
  if method_calls then
    return client:notify("$/agentls/flush", vim.empty_dict())
  end
  return client.notify("$/agentls/flush", vim.empty_dict())
end

--- stopped reports whether a client has exited.
function M.stopped(client)
  if method_calls then
    return client:is_stopped()
  end
  return client.is_stopped()
end

--- cancel_request cancels a pending request ($/cancelRequest).
function M.cancel_request(client, id)
  if method_calls then
    return client:cancel_request(id)
  end
  return client.cancel_request(id)
end

local function all_clients(filter)
  filter = filter or {}
  if vim.lsp.get_clients then
    return vim.lsp.get_clients(filter)
  end
  local out = {}
  local list = filter.bufnr and vim.lsp.buf_get_clients(filter.bufnr) or vim.lsp.get_active_clients()
  for _, c in pairs(list) do
    if not filter.name or c.name == filter.name then
      table.insert(out, c)
    end
  end
  return out
end

--- clients lists the running agentls clients, those attached to bufnr first.
function M.clients(bufnr)
  local out, seen = {}, {}
  if bufnr then
    for _, c in ipairs(all_clients({ bufnr = bufnr, name = "agentls" })) do
      table.insert(out, c)
      seen[c.id] = true
    end
  end
  for _, c in ipairs(all_clients({ name = "agentls" })) do
    if not seen[c.id] and not M.stopped(c) then
      table.insert(out, c)
    end
  end
  return out
end

--- client returns the agentls client for bufnr (or any, the most recent).
function M.client(bufnr)
  return M.clients(bufnr)[1]
end

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

--- root_for finds the workspace root of a file: the nearest folder upwards
--- holding one of the markers, else the file's own folder.
function M.root_for(path, markers)
  local dir = vim.fn.fnamemodify(path, ":p:h")
  local cur = dir
  while cur and cur ~= "" do
    for _, m in ipairs(markers) do
      if exists(cur .. "/" .. m) then
        return cur
      end
    end
    local parent = vim.fn.fnamemodify(cur, ":h")
    if parent == cur then
      break
    end
    cur = parent
  end
  return dir
end

--- capabilities are Neovim's own plus the agentls announcement of docs/protocol.md
--- section 1: this client answers approvals, shows an MCP server's form
--- (agentls.form), wants events and answers the editor extras of
--- agentls.editor (tabs, terminals, diagnostics; Neovim has no task runner).
function M.capabilities(extra)
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.experimental = caps.experimental or {}
  caps.experimental.agentls = { approvals = true, forms = true, events = true,
    editor = vim.deepcopy(require("agentls.editor").announce) }
  if extra then
    caps = vim.tbl_deep_extend("force", caps, extra)
  end
  return caps
end

--- attach attaches agentls to bufnr when it holds a file. cfg is the plugin
--- config; handlers are the client handlers. Returns the client id or nil.
function M.attach(bufnr, cfg, handlers)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%a[%w+.-]*://") then
    return nil
  end
  local root = M.root_for(name, cfg.root_markers)
  local config = {
    name = "agentls",
    cmd = cfg.cmd,
    cmd_env = cfg.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    capabilities = M.capabilities(cfg.capabilities),
    handlers = handlers,
    on_attach = cfg.on_attach,
    on_exit = cfg.on_exit,
  }
  if has_start then
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  local id = clients_by_root[root]
  local existing = id and vim.lsp.get_client_by_id(id)
  if not existing or M.stopped(existing) then
    id = vim.lsp.start_client(config)
    if not id then
      return nil
    end
    clients_by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

return M
