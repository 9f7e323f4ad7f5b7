-- Table tests of the plugin's pure parts (approval cards, shell quoting, the
-- server list, the statusline, the transcript renderer), run inside the
-- Neovim under test so every API they use is checked on that version.
local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/lib.lua")
local R = lib.result

lib.main(function()
  vim.opt.runtimepath:prepend(lib.env("AGENTLS_E2E_PLUGIN"))
  local approval = require("agentls.approval")
  local mcp = require("agentls.mcp")
  local status = require("agentls.status")
  local transcript = require("agentls.transcript")
  R.failures = {}
  R.ran = 0
  local function check(name, got, want)
    R.ran = R.ran + 1
    if not vim.deep_equal(got, want) then
      table.insert(R.failures, name .. ": got " .. vim.inspect(got) .. ", want " .. vim.inspect(want))
    end
  end

  local quoting = {
    { "a plain word stays as is", "npx", "npx" },
    { "a path with dots, dashes and slashes stays as is", "/usr/bin/mcp-server.js", "/usr/bin/mcp-server.js" },
    { "a space is quoted", "My Documents", "'My Documents'" },
    { "a single quote is escaped inside quotes", "it's", "'it'\\''s'" },
    { "shell metacharacters are quoted", "$(rm -rf ~)", "'$(rm -rf ~)'" },
    { "an empty argument is visible", "", "''" },
  }
  for _, c in ipairs(quoting) do
    check(c[1], approval.shell_quote(c[2]), c[3])
  end

  local cards = {
    { "a launch card without detail shows the quoted argv, every env pair and the cwd",
      { title = "Start MCP server 'fs'?", kind = "mcp_launch", command = { "npx", "-y", "/home/me/My Documents" },
        env = { { "NODE_OPTIONS", "--require /tmp/x.js" } }, cwd = "/repo" },
      { "Start MCP server 'fs'?", "$ npx -y '/home/me/My Documents'", "  env NODE_OPTIONS='--require /tmp/x.js'", "  cwd /repo" } },
    { "a launch card with detail shows the server's detail verbatim, once",
      { title = "Start?", kind = "mcp_launch", command = { "npx" }, detail = "command: npx\nenv: (none)" },
      { "Start?", "command: npx", "env: (none)" } },
    { "a call card without server · tool in its detail gains it, with the arguments",
      { title = "Call?", kind = "mcp_call", server = "fs", tool = "write_file", arguments = { path = "a" }, detail = "" },
      { "Call?", 'fs · write_file {"path": "a"}' } },
    { "a call card whose detail names server · tool is the detail",
      { title = "Call?", kind = "mcp_call", server = "fs", tool = "write_file", detail = "fs · write_file\n{}" },
      { "Call?", "fs · write_file", "{}" } },
    { "a write card is the title and the detail",
      { title = "Overwrite a.txt?", kind = "write", tool = "write_file", detail = "a.txt\n\n-x\n+y" },
      { "Overwrite a.txt?", "a.txt", "", "-x", "+y" } },
  }
  for _, c in ipairs(cards) do
    check(c[1], approval.card(c[2]), c[3])
  end

  local answered
  approval.ask({ title = "t", options = {} }, function(r)
    answered = r
  end)
  check("an approval without options is a denial", answered, { outcome = "cancelled" })
  local saved = vim.ui.select
  vim.ui.select = function(_, _, cb)
    cb(nil)
  end
  approval.ask({ title = "t", options = { { optionId = "allow_once", name = "Allow once" } } }, function(r)
    answered = r
  end)
  check("a dismissed picker is a denial", answered, { outcome = "cancelled" })
  vim.ui.select = function()
    error("picker broke")
  end
  vim.notify = function() end
  approval.ask({ title = "t", options = { { optionId = "allow_once", name = "Allow once" } } }, function(r)
    answered = r
  end)
  check("a picker that fails is a denial", answered, { outcome = "cancelled" })

  -- An MCP server's form: Submit, then each field in turn.
  local question = {
    approvalId = "a9", kind = "elicitation", server = "github", title = "github asks: Who?",
    detail = "MCP server github asks (its own words):\n  │ Who?",
    elicitation = { mode = "form", message = "Who?", fields = {
      { name = "name", type = "string", required = true },
      { name = "age", title = "Age", type = "integer", minimum = 1, maximum = 120, default = 30 },
      { name = "color", type = "string", choices = { { value = "r", title = "Red" }, { value = "g" } } },
      { name = "agree", type = "boolean", required = true },
      { name = "tags", type = "array", choices = { { value = "a" }, { value = "b" } } },
    } },
    options = { { optionId = "accept", name = "Submit", kind = "allow_once" }, { optionId = "decline", name = "Decline", kind = "reject_once" } },
  }
  check("an elicitation card is its title and detail, with no server · tool line",
    approval.card(question), { "github asks: Who?", "MCP server github asks (its own words):", "  │ Who?" })
  local typed, prompts = { "", "Ada", "1.5", "36", "2,1" }, {}
  local saved_input = vim.ui.input
  vim.ui.input = function(opts, cb)
    table.insert(prompts, opts.prompt)
    cb(table.remove(typed, 1))
  end
  vim.ui.select = function(items, opts, cb)
    if opts.kind == "agentls.approval" then
      return cb(items[1])
    end
    table.insert(prompts, opts.prompt)
    cb(items[1].label == "Yes" and items[1] or items[1])
  end
  approval.ask(question, function(r)
    answered = r
  end)
  check("Submit asks each field (re-asking what does not fit) and sends the form",
    answered, { outcome = "selected", optionId = "accept", content = { name = "Ada", age = 36, color = "r", agree = true, tags = { "b", "a" } } })
  check("each prompt names the server and the field", prompts[1], "github asks: name: ")
  typed = { "Ada" }
  vim.ui.input = function(opts, cb)
    cb(table.remove(typed, 1))
  end
  approval.ask(question, function(r)
    answered = r
  end)
  check("Escape in the middle of the form declines", answered, { outcome = "selected", optionId = "decline" })
  -- A hostile form: its field title fakes a line of the picker, its
  -- description clears the screen, its choice hides behind a bidi override.
  local hostile = vim.deepcopy(question)
  hostile.elicitation.fields = {
    { name = "pick", title = "Color\n1: Decline (safe)", description = "say\27[2J yes", type = "string", required = true,
      choices = { { value = "v", title = "Allow once\226\128\174" } } },
    { name = "note", title = "Note\226\129\166", type = "string" },
  }
  local shown = {}
  vim.ui.input = function(opts, cb)
    table.insert(shown, opts.prompt)
    cb("")
  end
  vim.ui.select = function(items, opts, cb)
    if opts.kind == "agentls.approval" then
      return cb(items[1])
    end
    table.insert(shown, opts.prompt)
    for _, it in ipairs(items) do
      table.insert(shown, opts.format_item(it))
    end
    cb(items[1])
  end
  approval.ask(hostile, function(r)
    answered = r
  end)
  local text = table.concat(shown, " | ")
  check("a hostile form's strings reach the pickers", text:find("Decline (safe)", 1, true) ~= nil and text:find("Allow once", 1, true) ~= nil, true)
  check("a hostile form cannot break a picker's line or hide characters",
    text:find("[%c]") == nil and text:find("\226\128[\139-\143\170-\174]") == nil and text:find("\226\129[\166-\169]") == nil, true)
  vim.ui.input = saved_input
  vim.ui.select = saved

  check("the server list says when nothing is configured", mcp.lines({})[1], "No MCP servers configured.")
  check("a connected server shows the MCP revision it speaks", mcp.lines({
    { name = "v2", state = "connected", origin = "user", command = { "node", "s.mjs" }, transport = "stdio",
      revision = "2026-07-28", tools = {} },
  })[3], "  MCP 2026-07-28 over stdio")
  check("a failed server shows its error and stderr", mcp.lines({
    { name = "gh", state = "failed", origin = "workspace", command = { "docker", "run" }, error = "exec: docker: not found",
      stderrTail = "boom\n", tools = {} },
  }), { "gh  [failed]  (workspace)", "  $ docker run", "  error: exec: docker: not found", "  stderr: boom", "  tools: 0" })

  check("the statusline is empty when idle", status.text(), "")
  status.on_event({ taskId = "t1", sessionId = "s", type = "tool_call", tool = "fs__read", status = "running" })
  check("the statusline names the running tool", status.text(), "agentls: calling fs__read")
  status.on_event({ taskId = "t1", sessionId = "s", type = "tool_call", tool = "fs__read", status = "running", message = "step 2\nof 3" })
  check("the statusline shows a running call's progress on one line", status.text(), "agentls: fs__read: step 2 of 3")
  status.on_event({ taskId = "t1", sessionId = "s", type = "approval", approvalId = "a1", state = "waiting" })
  status.set_approval("a1", { title = "x" })
  check("the statusline says an approval waits", status.text(), "agentls: approval needed")
  status.on_event({ taskId = "t1", sessionId = "s", type = "approval", approvalId = "a1", state = "resolved" })
  check("a resolved approval leaves the statusline", status.text(), "agentls: working")
  status.on_event({ taskId = "t1", sessionId = "s", type = "done", stopReason = "end_turn" })
  check("the statusline is empty after done", status.text(), "")

  local notes = {}
  vim.notify = function(msg)
    table.insert(notes, msg)
  end
  require("agentls").setup({ cmd = { "/nonexistent/agentls-missing", "serve" } })
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  vim.cmd("edit " .. dir .. "/one.txt")
  vim.cmd("edit " .. dir .. "/two.txt")
  check("a missing server binary is reported once, not per buffer", #notes, 1)
  check("the report names the command and how to install it",
    notes[1] ~= nil and notes[1]:find("/nonexistent/agentls-missing", 1, true) ~= nil and notes[1]:find("go install", 1, true) ~= nil, true)
  check("no client starts without the binary", #require("agentls.lsp").clients(), 0)

  transcript.next_prompt = "fix it"
  for _, ev in ipairs({
    { type = "text", delta = "Hel" },
    { type = "text", delta = "lo\nwor" },
    { type = "text", delta = "ld" },
    { type = "tool_call", toolCallId = "c1", tool = "write_file", title = "write_file a.txt", status = "pending", arguments = { path = "a.txt" } },
    { type = "tool_call", toolCallId = "c1", tool = "write_file", title = "write_file a.txt", status = "awaiting_approval" },
    { type = "approval", approvalId = "a1", state = "waiting" },
    { type = "approval", approvalId = "a1", state = "resolved", optionId = "allow_once" },
    { type = "tool_call", toolCallId = "c1", tool = "write_file", title = "write_file a.txt", status = "running" },
    { type = "tool_result", toolCallId = "c1", status = "completed", output = string.rep("x", 300) .. "\nline two\n" },
    { type = "text", delta = "Done." },
    { type = "done", stopReason = "end_turn", text = "Hello\nworld\nDone." },
  }) do
    ev.taskId, ev.sessionId = "t9", "s9"
    transcript.on_event(ev)
  end
  check("deltas join into lines; a tool call's line is updated in place, its arguments and result under it, capped",
    lib.lines(transcript.find("s9")), {
      "# agentls session s9", "", "## fix it", "", "Hello", "world", "",
      "> write_file a.txt (completed)", '  │ {"path":"a.txt"}', "",
      "> approval: allow_once", "",
      "  │ " .. string.rep("x", 200) .. "…", "  │ line two", "",
      "Done.", "", "--- end_turn", "",
    })
  transcript.open("s9")
  check("a window on the transcript folds each call's arguments and its result",
    { vim.fn.foldclosed(9), vim.fn.foldclosedend(9), vim.fn.foldclosed(11), vim.fn.foldclosed(13), vim.fn.foldclosedend(13), vim.fn.foldclosed(16) },
    { 9, 10, -1, 13, 15, -1 })
  vim.api.nvim_win_close(0, true)
  check("the transcript buffer is not editable by hand", vim.bo[transcript.find("s9")].modifiable, false)

  for _, ev in ipairs({
    { type = "tool_call", toolCallId = "c2", server = "fs", tool = "fs__read", title = "read a.txt", status = "running" },
    { type = "done", stopReason = "end_turn", text = "Not streamed." },
  }) do
    ev.taskId, ev.sessionId = "t10", "s10"
    transcript.on_event(ev)
  end
  check("a task that streamed no text shows the final text of done; MCP calls name their server",
    lib.lines(transcript.find("s10")), {
      "# agentls session s10", "", "## task t10", "", "> fs · read a.txt (running)", "", "Not streamed.", "", "--- end_turn", "",
    })

  for _, ev in ipairs({
    { type = "tool_call", toolCallId = "c3", server = "v2", tool = "v2__long", title = "v2 · long", status = "running" },
    { type = "tool_call", toolCallId = "c3", server = "v2", tool = "v2__long", title = "v2 · long", status = "running", message = "step 1 of 3" },
    { type = "tool_call", toolCallId = "c3", server = "v2", tool = "v2__long", title = "v2 · long", status = "running", message = "step 2\nof 3" },
  }) do
    ev.taskId, ev.sessionId = "t12", "s12"
    transcript.on_event(ev)
  end
  check("a running call's line shows its latest progress (its title names its server once)",
    lib.lines(transcript.find("s12")), { "# agentls session s12", "", "## task t12", "", "> v2 · long (running: step 2 ⏎ of 3)", "" })

  for _, ev in ipairs({
    { type = "reasoning", delta = "First thought.\nSec" },
    { type = "reasoning", delta = "ond thought." },
    { type = "text", delta = "The answer." },
    { type = "done", stopReason = "max_tokens", text = "The answer.", error = "the answer was cut at max_tokens (8192 tokens)" },
  }) do
    ev.taskId, ev.sessionId = "t11", "s11"
    transcript.on_event(ev)
  end
  check("reasoning is marked line by line, apart from the answer; a short stop says why",
    lib.lines(transcript.find("s11")), {
      "# agentls session s11", "", "## task t11", "", "┆ First thought.", "┆ Second thought.", "", "The answer.", "", "--- max_tokens: the answer was cut at max_tokens (8192 tokens)", "",
    })
  transcript.open("s11")
  local w = vim.api.nvim_get_current_win()
  check("a window on the transcript folds the reasoning away",
    { vim.fn.foldclosed(5), vim.fn.foldclosedend(5), vim.fn.foldclosed(8) }, { 5, 7, -1 })
  vim.api.nvim_win_close(w, true)

  transcript.next_prompt = nil
  transcript.on_event({ taskId = "t12", sessionId = "s12", type = "status", message = "started" })
  transcript.name_task("t12", "fix the bug\non line 3")
  check("a task named after its first event gets its prompt as its heading", lib.lines(transcript.find("s12"))[3], "## fix the bug ⏎ on line 3")
  transcript.name_task("t13", "add a test")
  transcript.on_event({ taskId = "t13", sessionId = "s12", type = "text", delta = "ok" })
  check("a task named before its first event is headed by its prompt", vim.tbl_contains(lib.lines(transcript.find("s12")), "## add a test"), true)
  transcript.replay("s14", {
    { type = "prompt", text = "what is here?", seq = 1 },
    { type = "text", delta = "A greeting.", seq = 2 },
    { type = "tool_call", toolCallId = "r1", tool = "read_file", title = "read_file a.txt", status = "pending", arguments = { path = "a.txt" }, seq = 3 },
    { type = "tool_call", toolCallId = "r1", tool = "read_file", title = "read_file a.txt", status = "completed", arguments = { path = "a.txt" }, seq = 4 },
    { type = "tool_result", toolCallId = "r1", status = "completed", output = "hello", seq = 5 },
  })
  check("a replayed session shows its prompts, answers and calls", lib.lines(transcript.find("s14")), {
    "# agentls session s14", "", "## what is here?", "", "A greeting.", "",
    "> read_file a.txt (completed)", '  │ {"path":"a.txt"}', "", "  │ hello",
  })

  local chat = require("agentls.chat")
  for _, c in ipairs({
    { "no mention", "explain this", { file = false, selection = false, diagnostics = false } },
    { "each mention", "fix @selection of @file, see #diagnostics.", { file = true, selection = true, diagnostics = true } },
    { "an address is no mention", "mail me@file.org about #diagnosticsX", { file = false, selection = false, diagnostics = false } },
  }) do
    check("mentions: " .. c[1], chat.mentions(c[2]), c[3])
  end
  check("the session picker escapes what the model titled",
    chat.label({ sessionId = "s1", title = "fix \27[2Kit", updatedAt = "2026-12-03T10:00:00Z", turns = 2 }),
    "fix <1B>[2Kit · 2026-12-03T10:00:00Z · 2 turns")

  -- The editor extras' handlers, as the server's requests reach them.
  local editor = require("agentls.editor").handlers()
  local function answer(method, params)
    local res, err = editor[method](nil, params, { method = method })
    return res, err
  end
  check("a tail shorter than the text is its last bytes", require("agentls.editor").tail("hello world", 5), "world")
  check("a tail never starts inside a character", require("agentls.editor").tail("x\195\169\195\169", 3), "\195\169")
  check("a tail of a short text is the text", require("agentls.editor").tail("ok", 10), "ok")
  for _, c in ipairs({
    { "agent/editor/sendTerminal", { id = "99", text = "ls" } },
    { "agent/editor/readTerminal", { id = "99", maxBytes = 10 } },
  }) do
    local res, err = answer(c[1], c[2])
    check(c[1] .. " of an unknown id is an error naming it", { res, err and err.code, err and err.message },
      { nil, vim.lsp.protocol.ErrorCodes.InvalidParams, 'Neovim has no terminal of agentls with the id "99" (its terminals: none; agent/editor/createTerminal makes one)' })
  end
  local _, err = answer("agent/editor/closeTab", {})
  check("agent/editor/closeTab without a path is an error saying what it needs", err and err.message, 'agent/editor/closeTab needs {path = "<an absolute file path>"}, got {}')
  check("agent/editor/closeTab of a file no buffer holds closes nothing", answer("agent/editor/closeTab", { path = "/nowhere/x.txt" }),
    { closed = false, reason = "/nowhere/x.txt is not open in Neovim (no listed buffer holds it)" })
  local _, cerr = answer("agent/editor/createTerminal", { name = "t", cwd = "/nowhere/at/all" })
  check("agent/editor/createTerminal in a folder that is not there is an error", cerr and cerr.message, 'agent/editor/createTerminal needs cwd, an existing folder, got "/nowhere/at/all"')
  check("no terminal of agentls yet", answer("agent/editor/terminals", vim.empty_dict()), { terminals = {} })
  local scratch = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_set_current_buf(scratch)
  local tabs = answer("agent/editor/tabs", vim.empty_dict()).tabs
  check("a scratch buffer shown in tabpage 1 is its active tab, with no path", tabs[1] and { tabs[1].path, tabs[1].active, tabs[1].group, tabs[1].dirty }, { "", true, 1, false })
  check("the buffers no window shows come after, in group 0", tabs[#tabs] and { tabs[#tabs].active, tabs[#tabs].group }, { false, 0 })
  local unloaded = vim.fn.bufadd("/nowhere/unloaded.txt")
  local dns = vim.api.nvim_create_namespace("agentls-unit")
  vim.diagnostic.set(dns, unloaded, { { lnum = 2, col = 5, end_lnum = 2, end_col = 9, severity = 1, message = "m", source = "s",
    user_data = { lsp = { range = { start = { line = 2, character = 3 }, ["end"] = { line = 2, character = 7 } }, code = 7 } } } })
  check("a language server's diagnostic of a buffer not loaded keeps its range and code", answer("agent/editor/diagnostics", { path = "/nowhere/unloaded.txt" }),
    { files = { { path = "/nowhere/unloaded.txt", diagnostics = { { range = { start = { line = 2, character = 3 }, ["end"] = { line = 2, character = 7 } },
      severity = 1, message = "m", source = "s", code = 7 } } } } })
  vim.diagnostic.reset(dns)
  check("the diagnostics of a file no buffer holds are none", answer("agent/editor/diagnostics", { path = "/nowhere/x.txt" }), { files = {} })
end)
