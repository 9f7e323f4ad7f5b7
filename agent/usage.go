package agent

import (
	"fmt"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/wire"
)

// What a turn used and cost, written the same way by every front that
// shows it (agentls chat and run, the language server's summary line).

// costOf is what u cost in US dollars at model's price ([prices]), nil
// when the model has no price.
func (c *Core) costOf(model string, u wire.Usage) *float64 {
	p, ok := config.PriceOf(c.cfg.Prices, model)
	if !ok {
		return nil
	}
	cost := p.Cost(u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens)
	return &cost
}

// CostOf is what u cost at the price of the session's model, nil when it
// has none (the language server's summary line).
func (c *Core) CostOf(sessionID string, u wire.Usage) *float64 {
	return c.costOf(c.ModelOf(sessionID).Name, u)
}

// Thousands writes n with thousands separators: 12,345.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Dollars writes a cost: $0.0123 under a cent, $0.123 under a dollar,
// else $1.23.
func Dollars(c float64) string {
	switch {
	case c < 0.01:
		return fmt.Sprintf("$%.4f", c)
	case c < 1:
		return fmt.Sprintf("$%.3f", c)
	}
	return fmt.Sprintf("$%.2f", c)
}

// UsageSummary is a turn's tokens, the share of its input read from the
// provider's cache and its cost (when priced), then its session's:
// "2,130 in (0% cache) · 12 out · $0.0072 · session 5,023 in, 36 out, $0.016".
func UsageSummary(turn wire.Usage, cost *float64, session wire.Usage, sessionCost *float64) string {
	s := Thousands(turn.InputTokens) + " in"
	if turn.InputTokens > 0 {
		s += fmt.Sprintf(" (%d%% cache)", (200*turn.CacheReadTokens/turn.InputTokens+1)/2)
	}
	s += " · " + Thousands(turn.OutputTokens) + " out"
	if cost != nil {
		s += " · " + Dollars(*cost)
	}
	s += " · session " + Thousands(session.InputTokens) + " in, " + Thousands(session.OutputTokens) + " out"
	if sessionCost != nil {
		s += ", " + Dollars(*sessionCost)
	}
	return s
}
