package config

import (
	"fmt"
	"math"
	"strings"
)

// Price is what a model costs, in US dollars per million tokens: input
// not read from the provider's cache, output, input read from the cache
// and input written to it.
type Price struct {
	Input, Output, CacheRead, CacheWrite float64
}

// DefaultPrices are the vendors' list prices (USD per million tokens, as
// published in 2025) of models agentls knows, keyed by a model name or
// the start of one. The user config's [prices] adds to them and overrides
// them; a model none matches has no cost shown (a local server costs
// nothing agentls can count).
var DefaultPrices = map[string]Price{
	"claude-opus-4-5":   {Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25},
	"claude-opus-4":     {Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75},
	"claude-sonnet-4":   {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
	"claude-3-7-sonnet": {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
	"claude-haiku-4-5":  {Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25},
	"claude-3-5-haiku":  {Input: 0.8, Output: 4, CacheRead: 0.08, CacheWrite: 1},
	"gpt-4.1-nano":      {Input: 0.1, Output: 0.4, CacheRead: 0.025},
	"gpt-4.1-mini":      {Input: 0.4, Output: 1.6, CacheRead: 0.1},
	"gpt-4.1":           {Input: 2, Output: 8, CacheRead: 0.5},
	"gpt-4o-mini":       {Input: 0.15, Output: 0.6, CacheRead: 0.075},
	"gpt-4o":            {Input: 2.5, Output: 10, CacheRead: 1.25},
	"gpt-5-mini":        {Input: 0.25, Output: 2, CacheRead: 0.025},
	"gpt-5":             {Input: 1.25, Output: 10, CacheRead: 0.125},
}

// PriceOf is the price of model: the entry of prices whose key is the
// model's name or the longest start of it. ok is false when none is.
func PriceOf(prices map[string]Price, model string) (p Price, ok bool) {
	best := -1
	for k, v := range prices {
		if strings.HasPrefix(model, k) && len(k) > best {
			p, best = v, len(k)
		}
	}
	return p, best >= 0
}

// Cost is what tokens cost at p, in dollars: input counts every input
// token, the cache's reads and writes included (as agentls counts them).
func (p Price) Cost(input, output, cacheRead, cacheWrite int) float64 {
	plain := max(input-cacheRead-cacheWrite, 0)
	return (float64(plain)*p.Input + float64(output)*p.Output + float64(cacheRead)*p.CacheRead + float64(cacheWrite)*p.CacheWrite) / 1e6
}

// pricesKeys are the keys of one [prices."model"] table.
var pricesKeys = []string{"input", "output", "cache_read", "cache_write"}

// prices reads the user config's [prices] table: one table per model
// name (or start of one) with its dollars per million tokens.
func (l *loader) prices(f *tomlFile, t map[string]any) {
	for _, name := range sortedKeys(t) {
		path := []string{"prices", name}
		entry, err := asTable(t[name], fmt.Sprintf(`a table [prices.%q] with input, output, cache_read and cache_write in dollars per million tokens`, name))
		if err != nil {
			l.diag(f, SeverityError, path, err.Error()+"; the entry is ignored")
			continue
		}
		p, ok := l.cfg.Prices[name]
		if !ok {
			p, _ = PriceOf(l.cfg.Prices, name) // a missing key keeps the default's
		}
		for _, k := range sortedKeys(entry) {
			kpath := append(append([]string{}, path...), k)
			var dst *float64
			switch k {
			case "input":
				dst = &p.Input
			case "output":
				dst = &p.Output
			case "cache_read":
				dst = &p.CacheRead
			case "cache_write":
				dst = &p.CacheWrite
			default:
				l.diag(f, SeverityWarning, kpath, unknownKey(pricesKeys))
				continue
			}
			n, err := asDollars(entry[k])
			if err != nil {
				l.diag(f, SeverityError, kpath, err.Error()+"; the default is used")
				continue
			}
			*dst = n
		}
		l.cfg.Prices[name] = p
	}
}

// asDollars is a price: a number (integer or not), zero or more.
func asDollars(v any) (float64, error) {
	var n float64
	switch x := v.(type) {
	case int64:
		n = float64(x)
	case float64:
		n = x
	default:
		return 0, wrongType(v, "a number of dollars per million tokens (3 or 0.30)")
	}
	if n < 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, fmt.Errorf("expected dollars per million tokens, zero or more, got %v", v)
	}
	return n, nil
}
