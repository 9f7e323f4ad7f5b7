-- Shared helpers of the end-to-end scripts: read the test's environment,
-- record results, wait with a bound, and leave with an exit code
-- (cquit N) so the Go test can assert on both.
local M = {}

M.result = { notes = {} }

--- env reads a variable the Go test set, failing loudly without it.
function M.env(k)
  local v = os.getenv(k)
  if not v or v == "" then
    M.fail("the test did not set " .. k)
  end
  return v
end

--- finish writes the result file and exits with code.
function M.finish(code)
  local path = os.getenv("AGENTLS_E2E_OUT")
  local f = path and io.open(path, "w")
  if f then
    f:write(vim.fn.json_encode(M.result))
    f:close()
  end
  vim.cmd("cquit " .. code)
end

--- fail records why and exits 1.
function M.fail(msg)
  M.result.error = tostring(msg)
  M.finish(1)
end

--- wait pumps the event loop until cond() is true, failing after ms. what
--- names the thing waited for (a function: called when failing).
function M.wait(ms, cond, what)
  if not vim.wait(ms, cond, 20) then
    if type(what) == "function" then
      what = what()
    end
    M.fail("timed out after " .. ms .. " ms waiting for " .. what)
  end
end

--- note records a line for the test's log.
function M.note(s)
  table.insert(M.result.notes, s)
end

--- run runs a task on bufnr without its document (agentls.run) and
--- returns the agent/run result, or {error} when it failed.
function M.run(bufnr, prompt)
  local result
  require("agentls").run({ prompt = prompt, bufnr = bufnr, document = false, on_result = function(res, err)
    result = res or { error = err and err.message }
  end })
  M.wait(30000, function()
    return result ~= nil
  end, "the agent/run result of " .. prompt)
  return result
end

--- lines returns a buffer's lines.
function M.lines(bufnr)
  return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
end

--- main runs fn, then exits 0; any error exits 1 with its traceback.
function M.main(fn)
  local ok, err = xpcall(fn, debug.traceback)
  if not ok then
    M.fail(err)
  end
  M.finish(0)
end

--- capture_notify keeps every vim.notify message in result.notify.
function M.capture_notify()
  M.result.notify = {}
  vim.notify = function(msg)
    table.insert(M.result.notify, tostring(msg))
  end
end

--- wait_attached waits for setup{} to attach agentls to bufnr.
function M.wait_attached(bufnr)
  local lsp = require("agentls.lsp")
  M.wait(20000, function()
    local c = lsp.client(bufnr)
    return c ~= nil and c.server_capabilities ~= nil and vim.lsp.buf_is_attached(bufnr, c.id)
  end, "setup{} to attach agentls to the buffer")
end

--- first_server asks agent/mcp/servers and returns the first server it
--- lists and how many it lists (nil, nil when no answer came in 5 s).
function M.first_server(client, bufnr)
  local res, done = nil, false
  require("agentls.lsp").request(client, "agent/mcp/servers", {}, function(_, r)
    res = r
    done = true
  end, bufnr)
  vim.wait(5000, function()
    return done
  end, 10)
  local servers = res and res.servers
  return servers and servers[1], servers and #servers
end

--- wait_connected waits up to 40 s for the first MCP server to be
--- connected; what names it in the failure.
function M.wait_connected(client, bufnr, what)
  local state
  M.wait(40000, function()
    local s = M.first_server(client, bufnr)
    state = s and s.state
    if state ~= "connected" then
      vim.wait(200)
      return false
    end
    return true
  end, function()
    return what .. " to connect (last state: " .. tostring(state) .. ")"
  end)
end

--- code_action_title returns the title of a vim.ui.select item of
--- vim.lsp.buf.code_action: {client_id, action} on 0.7, {action=, ctx=} on 0.10.
function M.code_action_title(item)
  local action = item.action or item[2]
  return action and action.title or "?"
end

return M
