package main

import (
	"os"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/wire"
)

// prices is the price of the model a command talks to ([prices] of the
// user config over config.DefaultPrices), if the table has one.
type prices struct {
	price config.Price
	known bool
}

// pricesOf finds the configured model's price.
func pricesOf(cfg *config.Config) prices {
	name := cfg.Model.Name
	if r, err := model.Resolve(cfg.Model, os.Getenv); err == nil {
		name = r.Name
	}
	p, ok := config.PriceOf(cfg.Prices, name)
	return prices{price: p, known: ok}
}

// of is what u cost, as "$0.0123", or "" when the model has no price.
func (p prices) of(u wire.Usage) string {
	if !p.known {
		return ""
	}
	return agent.Dollars(p.price.Cost(u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens))
}
