-- agentls commands. They exist as soon as the plugin is on 'runtimepath';
-- require("agentls").setup{} is what starts the server and attaches buffers.
if vim.g.loaded_agentls then
  return
end
vim.g.loaded_agentls = true

local function cmd(name, fn, opts)
  vim.api.nvim_create_user_command(name, fn, opts or {})
end

cmd("AgentRun", function(o)
  require("agentls").run({
    prompt = o.args,
    line1 = o.range > 0 and o.line1 or nil,
    line2 = o.range > 0 and o.line2 or nil,
    visual = o.range > 0,
  })
end, { nargs = "*", range = true, desc = "agentls: run a task (a visual range is the context)" })

cmd("AgentCancel", function()
  require("agentls").cancel()
end, { desc = "agentls: cancel the running task" })

cmd("AgentApprove", function()
  require("agentls").approve()
end, { desc = "agentls: answer the oldest waiting approval" })

cmd("AgentMcp", function()
  require("agentls").mcp()
end, { desc = "agentls: the MCP servers, their tools and policy" })

cmd("AgentPrompt", function(o)
  require("agentls").prompt(nil, o.args)
end, { nargs = "*", desc = "agentls: run an MCP server's prompt (pick one, or SERVER.PROMPT name=value ...)" })

cmd("AgentTranscript", function(o)
  require("agentls").transcript(nil, o.bang)
end, { bang = true, desc = "agentls: open the live transcript (! opens the Markdown file)" })

cmd("AgentCompact", function()
  require("agentls").compact()
end, { desc = "agentls: compact the session (summarize older turns to fit the model's window)" })

cmd("AgentNewChat", function()
  require("agentls").new_chat()
end, { desc = "agentls: start an empty session" })

cmd("AgentChat", function(o)
  require("agentls").chat(o.args)
end, { nargs = "*", desc = "agentls: the chat of the session (text: send it)" })

cmd("AgentMode", function(o)
  require("agentls").set_mode(o.args)
end, {
  nargs = "?",
  complete = function()
    return { "plan", "ask", "auto-edit", "autopilot" }
  end,
  desc = "agentls: the session's mode: plan (read-only), ask, auto-edit or autopilot (no argument: pick one)",
})

cmd("AgentModel", function(o)
  require("agentls").set_model(o.args)
end, {
  nargs = "?",
  desc = "agentls: the session's model for its next turn: a profile of the user config (no argument: pick one)",
})

cmd("AgentRules", function()
  require("agentls").rules()
end, { desc = "agentls: the saved \"always allow\" rules of the workspace (pick one to forget it)" })

cmd("AgentRewind", function(o)
  require("agentls").rewind(o.args)
end, { nargs = "?", desc = "agentls: put the files of a turn and later turns back as before it, and continue from there (no argument: pick the turn)" })

cmd("AgentSessions", function()
  require("agentls").sessions()
end, { desc = "agentls: reopen a past session in the chat" })
