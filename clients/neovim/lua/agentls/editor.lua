-- agentls.editor: the editor extras (docs/protocol.md section 9) that
-- Neovim answers for an outside MCP agent: its tabs (the listed buffers,
-- grouped by the tabpage showing them), the terminals agentls created in
-- it, and every diagnostic it holds (vim.diagnostic, all namespaces). The
-- server sends these agent/editor/* requests only for an outside agent's
-- call, after the gates of its own; each handler answers (result, err) as
-- a vim.lsp handler of a server request does. Neovim has no task runner,
-- so tasks are not announced.
local M = {}

local api = vim.api
local rpc = vim.lsp.rpc
local invalid_params = vim.lsp.protocol.ErrorCodes.InvalidParams

-- announce is what lsp.capabilities puts in experimental.agentls.editor.
M.announce = { tabs = true, terminals = true, diagnostics = true }

-- terminals are the terminals agentls created, in creation order:
-- {id, name, buf, job}. Only these are listed, read or written.
local terminals = {}

local function fail(msg)
  return nil, rpc.rpc_response_error(invalid_params, msg)
end

-- file_path is a buffer's absolute file path, "" for a buffer that is not a
-- file (a terminal, a scratch or help buffer, a URI like oil:// or fugitive://).
local function file_path(buf)
  local name = api.nvim_buf_get_name(buf)
  if name == "" or vim.bo[buf].buftype ~= "" or name:match("^%a[%w+.-]*://") then
    return ""
  end
  return vim.fn.fnamemodify(name, ":p")
end

local function listed(buf)
  return api.nvim_buf_is_valid(buf) and vim.bo[buf].buflisted
end

local function label(buf, path)
  if path ~= "" then
    return vim.fn.fnamemodify(path, ":t")
  end
  local name = api.nvim_buf_get_name(buf)
  if vim.bo[buf].buftype == "terminal" then
    return vim.b[buf].term_title or name
  end
  return name ~= "" and name or "[No Name]"
end

-- tabs answers agent/editor/tabs: each tabpage's listed buffers in its
-- windows (group = the tabpage's number; active = the buffer of its
-- current window), then the listed buffers shown in no window (group 0,
-- never active: hidden buffers, still open, possibly with unsaved changes).
function M.tabs()
  local out, shown = {}, {}
  for nr, tab in ipairs(api.nvim_list_tabpages()) do
    local cur = api.nvim_win_get_buf(api.nvim_tabpage_get_win(tab))
    local seen = {}
    for _, win in ipairs(api.nvim_tabpage_list_wins(tab)) do
      local buf = api.nvim_win_get_buf(win)
      if listed(buf) and not seen[buf] then
        seen[buf], shown[buf] = true, true
        local path = file_path(buf)
        table.insert(out, { path = path, label = label(buf, path), active = buf == cur,
          dirty = vim.bo[buf].modified, group = nr })
      end
    end
  end
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if listed(buf) and not shown[buf] then
      local path = file_path(buf)
      table.insert(out, { path = path, label = label(buf, path), active = false,
        dirty = vim.bo[buf].modified, group = 0 })
    end
  end
  return { tabs = out }
end

-- buffer_of is the listed buffer whose file is path (with any: any
-- buffer, as a language server's diagnostics of a file not open are in
-- an unlisted one), or nil.
local function buffer_of(path, any)
  local want = vim.fn.fnamemodify(path, ":p")
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if (any or listed(buf)) and file_path(buf) == want then
      return buf
    end
  end
  return nil
end

-- close_buffer deletes buf from the buffer list and keeps the window
-- layout: each window showing it shows its alternate buffer (or another
-- listed one, or an empty buffer) first, as closing a tab of a bufferline
-- does, where a plain :bdelete would close those windows.
local function close_buffer(buf)
  for _, win in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_buf(win) == buf then
      api.nvim_win_call(win, function()
        local alt = vim.fn.bufnr("#")
        if alt > 0 and alt ~= buf and listed(alt) then
          api.nvim_win_set_buf(win, alt)
          return
        end
        for _, b in ipairs(api.nvim_list_bufs()) do
          if b ~= buf and listed(b) then
            api.nvim_win_set_buf(win, b)
            return
          end
        end
        api.nvim_win_set_buf(win, api.nvim_create_buf(true, false))
      end)
    end
  end
  vim.cmd("bdelete " .. buf)
end

-- close_tab answers agent/editor/closeTab: a buffer with unsaved changes
-- is never closed; any other is deleted from the buffer list (:bdelete)
-- with the windows that showed it kept.
function M.close_tab(params)
  local path = type(params) == "table" and params.path
  if type(path) ~= "string" or path == "" then
    return fail('agent/editor/closeTab needs {path = "<an absolute file path>"}, got ' .. vim.inspect(params))
  end
  local buf = buffer_of(path)
  if not buf then
    return { closed = false, reason = path .. " is not open in Neovim (no listed buffer holds it)" }
  end
  if vim.bo[buf].modified then
    return { closed = false, reason = path .. " has unsaved changes in Neovim: save (:w) or discard (:e!) them there first" }
  end
  local ok, err = pcall(close_buffer, buf)
  if not ok then
    return { closed = false, reason = "Neovim did not close " .. path .. ": " .. tostring(err) }
  end
  return { closed = not listed(buf) }
end

-- live drops the terminals whose buffer the user wiped.
local function live()
  local out = {}
  for _, t in ipairs(terminals) do
    if api.nvim_buf_is_valid(t.buf) then
      table.insert(out, t)
    end
  end
  terminals = out
  return out
end

local function terminal(id)
  local ids = {}
  for _, t in ipairs(live()) do
    if t.id == id then
      return t
    end
    table.insert(ids, t.id)
  end
  return nil, string.format("Neovim has no terminal of agentls with the id %q (its terminals: %s)", tostring(id),
    #ids > 0 and table.concat(ids, ", ") or "none; agent/editor/createTerminal makes one")
end

-- list_terminals answers agent/editor/terminals: only agentls's own.
function M.list_terminals()
  local out = {}
  for _, t in ipairs(live()) do
    table.insert(out, { id = t.id, name = t.name })
  end
  return { terminals = out }
end

-- create_terminal answers agent/editor/createTerminal: the user's shell
-- ('shell') in cwd, in a new listed buffer that no window shows, so the
-- user's windows stay as they are (`:ls` lists it, `:buffer N` shows it).
-- Its id is the buffer number.
function M.create_terminal(params)
  params = type(params) == "table" and params or {}
  local name = type(params.name) == "string" and params.name ~= "" and params.name or "agentls"
  local cwd = params.cwd
  if type(cwd) ~= "string" or cwd == "" or vim.fn.isdirectory(cwd) == 0 then
    return fail("agent/editor/createTerminal needs cwd, an existing folder, got " .. vim.inspect(cwd))
  end
  local buf = api.nvim_create_buf(true, false)
  local ok, job = pcall(api.nvim_buf_call, buf, function()
    return vim.fn.termopen(vim.o.shell, { cwd = cwd })
  end)
  if not ok or type(job) ~= "number" or job <= 0 then
    pcall(api.nvim_buf_delete, buf, { force = true })
    return fail("Neovim could not start a terminal of " .. vim.o.shell .. " in " .. cwd .. ": " .. tostring(job))
  end
  vim.b[buf].agentls_terminal = name
  local t = { id = tostring(buf), name = name, buf = buf, job = job }
  table.insert(terminals, t)
  return { id = t.id }
end

-- send_terminal answers agent/editor/sendTerminal: the text as typed,
-- then Enter (a carriage return, what the key sends).
function M.send_terminal(params)
  params = type(params) == "table" and params or {}
  local t, why = terminal(params.id)
  if not t then
    return fail(why)
  end
  if type(params.text) ~= "string" then
    return fail("agent/editor/sendTerminal needs text, a string, got " .. vim.inspect(params.text))
  end
  local ok, err = pcall(vim.fn.chansend, t.job, params.text .. "\r")
  if not ok or err == 0 then
    return fail("Neovim could not type into the terminal " .. t.id .. " (" .. t.name .. "): its shell has exited")
  end
  return vim.empty_dict()
end

--- tail is the end of text, at most max bytes, starting at a character
--- (a UTF-8 sequence is never cut).
function M.tail(text, max)
  if #text <= max then
    return text
  end
  local cut = #text - max + 1
  while cut <= #text do
    local b = text:byte(cut)
    if b < 0x80 or b >= 0xC0 then
      break
    end
    cut = cut + 1
  end
  return text:sub(cut)
end

-- read_terminal answers agent/editor/readTerminal: the terminal buffer's
-- lines (the screen and its scrollback, wrapped at the terminal's width),
-- the empty lines below the last output left out, at most maxBytes from
-- the end, cut at a character boundary.
function M.read_terminal(params)
  params = type(params) == "table" and params or {}
  local t, why = terminal(params.id)
  if not t then
    return fail(why)
  end
  local max = tonumber(params.maxBytes)
  if not max or max <= 0 then
    return fail("agent/editor/readTerminal needs maxBytes, a positive number, got " .. vim.inspect(params.maxBytes))
  end
  local lines = api.nvim_buf_get_lines(t.buf, 0, -1, false)
  while #lines > 0 and lines[#lines]:match("^%s*$") do
    table.remove(lines)
  end
  return { text = M.tail(table.concat(lines, "\n"), max) }
end

-- lsp_diagnostic turns a vim.diagnostic item of buf into an LSP Diagnostic:
-- 0-based lines, UTF-16 characters (vim.diagnostic counts bytes; in a
-- buffer not loaded, a language server's diagnostic keeps its own range).
local function lsp_diagnostic(buf, d)
  local loaded = api.nvim_buf_is_loaded(buf)
  local nlines = loaded and api.nvim_buf_line_count(buf) or 0
  local function pos(line, col)
    line, col = line or 0, col or 0
    if loaded and line < nlines then
      local text = api.nvim_buf_get_lines(buf, line, line + 1, false)[1] or ""
      col = vim.lsp.util.character_offset(buf, line, math.min(col, #text), "utf-16")
    end
    return { line = line, character = col }
  end
  local lsp = type(d.user_data) == "table" and type(d.user_data.lsp) == "table" and d.user_data.lsp or {}
  local range = { start = pos(d.lnum, d.col), ["end"] = pos(d.end_lnum or d.lnum, d.end_col or d.col) }
  if not loaded and type(lsp.range) == "table" then
    range = lsp.range -- no text to count in: the language server's own range
  end
  local out = {
    range = range,
    severity = d.severity,
    message = d.message,
    source = d.source,
  }
  out.code = d.code or lsp.code
  out.codeDescription = lsp.codeDescription
  out.tags = lsp.tags
  return out
end

-- diagnostics answers agent/editor/diagnostics: vim.diagnostic.get of
-- every namespace (every language server's, every linter's), per file;
-- of one file when params.path is given.
function M.diagnostics(params)
  params = type(params) == "table" and params or {}
  local only
  if type(params.path) == "string" and params.path ~= "" then
    only = buffer_of(params.path, true)
    if not only then
      return { files = {} }
    end
  end
  local by_buf, order = {}, {}
  for _, d in ipairs(vim.diagnostic.get(only)) do
    local buf = d.bufnr or only
    if buf and file_path(buf) ~= "" then
      if not by_buf[buf] then
        by_buf[buf] = {}
        table.insert(order, buf)
      end
      table.insert(by_buf[buf], lsp_diagnostic(buf, d))
    end
  end
  local files = {}
  for _, buf in ipairs(order) do
    table.insert(files, { path = file_path(buf), diagnostics = by_buf[buf] })
  end
  return { files = files }
end

-- wrap makes fn a vim.lsp handler of a server request: (err, params, ctx)
-- in, (result, err) out; a Lua error becomes a JSON-RPC error saying it.
local function wrap(method, fn)
  return function(_, params)
    local ok, res, err = pcall(fn, params)
    if not ok then
      return nil, rpc.rpc_response_error(vim.lsp.protocol.ErrorCodes.InternalError,
        "Neovim failed to answer " .. method .. ": " .. tostring(res))
    end
    return res, err
  end
end

--- handlers are the agent/editor/* handlers of what M.announce says.
function M.handlers()
  return {
    ["agent/editor/tabs"] = wrap("agent/editor/tabs", M.tabs),
    ["agent/editor/closeTab"] = wrap("agent/editor/closeTab", M.close_tab),
    ["agent/editor/terminals"] = wrap("agent/editor/terminals", M.list_terminals),
    ["agent/editor/createTerminal"] = wrap("agent/editor/createTerminal", M.create_terminal),
    ["agent/editor/sendTerminal"] = wrap("agent/editor/sendTerminal", M.send_terminal),
    ["agent/editor/readTerminal"] = wrap("agent/editor/readTerminal", M.read_terminal),
    ["agent/editor/diagnostics"] = wrap("agent/editor/diagnostics", M.diagnostics),
  }
end

return M
