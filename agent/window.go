package agent

import (
	"fmt"
	"os"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/model/providers"
)

// window is the profile's context window and where the figure came from
// (model.FindWindow: its context_window, else the server asked, else what
// it said before, else a guess from the name), found once per Core, or
// lowered since by a context-exceeded error.
func (c *Core) window(pm *profileModel) model.Window {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	if pm.win != nil {
		return *pm.win
	}
	res, err := model.Resolve(pm.cfg, os.Getenv)
	if err != nil {
		// The first request will say what is wrong with the table.
		return model.Window{Tokens: providers.ContextWindowFor(nil, pm.cfg.ContextWindow, pm.cfg.Name), Guessed: true}
	}
	w := model.FindWindow(c.ctx, res, pm.cfg.ContextWindow, model.OpenMemory(c.stateDir), nil)
	pm.win = &w
	return w
}

// firstWindowNote is, once per profile, the status line saying the
// window in use and where it came from ("" after the first time).
func (c *Core) firstWindowNote(pm *profileModel, w model.Window) string {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	if pm.winSaid || w.From == "" {
		return ""
	}
	pm.winSaid = true
	return fmt.Sprintf("the model's context window: %d tokens (%s)", w.Tokens, w.From)
}

// learnWindow lowers the window to what a server's context-exceeded error
// named and remembers it for the endpoint and model; false when it is not
// lower than the window in use.
func (c *Core) learnWindow(pm *profileModel, tokens int) (model.Window, bool) {
	cur := c.window(pm)
	if tokens <= 0 || tokens >= cur.Tokens {
		return cur, false
	}
	res, err := model.Resolve(pm.cfg, os.Getenv)
	if err != nil {
		return cur, false
	}
	from := model.LearnWindow(model.OpenMemory(c.stateDir), res, tokens)
	w := model.Window{Tokens: tokens, From: from}
	pm.mu.Lock()
	pm.win = &w
	pm.mu.Unlock()
	return w, true
}

// hiddenToolsNote is, once per profile, the status line saying that MCP
// tools are kept out of the request, so the model must find them by tool
// search: all and offered count MCP tools, tokens is what all their
// definitions take ("" when nothing is hidden, or it was said).
func (c *Core) hiddenToolsNote(pm *profileModel, all, offered, tokens int, o toolOffer, w model.Window) string {
	if offered >= all {
		return ""
	}
	pm.mu.Lock()
	defer pm.mu.Unlock()
	if pm.hidSaid {
		return ""
	}
	pm.hidSaid = true
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
