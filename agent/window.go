package agent

import (
	"fmt"
	"os"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/model/providers"
)

// modelWindow is the configured model's context window and where the
// figure came from (model.FindWindow: [model] context_window, else the
// server asked, else what it said before, else a guess from the name),
// found once per Core, or lowered since by a context-exceeded error.
func (c *Core) modelWindow() model.Window {
	c.winMu.Lock()
	defer c.winMu.Unlock()
	if c.win != nil {
		return *c.win
	}
	res, err := model.Resolve(c.cfg.Model, os.Getenv)
	if err != nil {
		// The first request will say what is wrong with [model].
		return model.Window{Tokens: providers.ContextWindowFor(nil, c.cfg.Model.ContextWindow, c.cfg.Model.Name), Guessed: true}
	}
	w := model.FindWindow(c.ctx, res, c.cfg.Model.ContextWindow, model.OpenMemory(c.stateDir), nil)
	c.win = &w
	return w
}

// contextWindow is the window of the configured model, in tokens.
func (c *Core) contextWindow() int { return c.modelWindow().Tokens }

// firstWindowNote is, once per Core, the status line saying the window
// in use and where it came from ("" after the first time).
func (c *Core) firstWindowNote(w model.Window) string {
	c.winMu.Lock()
	defer c.winMu.Unlock()
	if c.winSaid || w.From == "" {
		return ""
	}
	c.winSaid = true
	return fmt.Sprintf("the model's context window: %d tokens (%s)", w.Tokens, w.From)
}

// learnWindow lowers the window to what a server's context-exceeded error
// named and remembers it for the endpoint and model; false when it is not
// lower than the window in use.
func (c *Core) learnWindow(tokens int) (model.Window, bool) {
	cur := c.modelWindow()
	if tokens <= 0 || tokens >= cur.Tokens {
		return cur, false
	}
	res, err := model.Resolve(c.cfg.Model, os.Getenv)
	if err != nil {
		return cur, false
	}
	from := model.LearnWindow(model.OpenMemory(c.stateDir), res, tokens)
	w := model.Window{Tokens: tokens, From: from}
	c.winMu.Lock()
	c.win = &w
	c.winMu.Unlock()
	return w, true
}

// hiddenToolsNote is, once per Core, the status line saying that MCP
// tools are kept out of the request, so the model must find them by tool
// search: all and offered count MCP tools, tokens is what all their
// definitions take ("" when nothing is hidden, or it was said).
func (c *Core) hiddenToolsNote(all, offered, tokens int, o toolOffer, w model.Window) string {
	if offered >= all {
		return ""
	}
	c.winMu.Lock()
	defer c.winMu.Unlock()
	if c.hidSaid {
		return ""
	}
	c.hidSaid = true
	if tokens <= o.budget {
		return fmt.Sprintf("%d of %d MCP tools are not in the request: one request offers at most %d tools ([model] max_tools), so the model finds the rest by tool search",
			all-offered, all, o.maxTools)
	}
	how := "as the server says"
	if w.Guessed {
		how = "guessed"
	}
	return fmt.Sprintf("%d of %d MCP tools are not in the request: their definitions (about %d tokens) pass the budget of %d tokens (of the model's %d-token window, %s), so the model finds them by tool search; set [model] context_window to the window your server runs with, or [mcp] tool_budget_tokens",
		all-offered, all, tokens, o.budget, w.Tokens, how)
}
