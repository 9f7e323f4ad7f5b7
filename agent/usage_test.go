package agent

import (
	"testing"

	"github.com/agentls/agentls/wire"
)

func TestUsageSummary(t *testing.T) {
	cost, total := 0.0072, 0.016
	tests := []struct {
		name        string
		turn        wire.Usage
		cost        *float64
		session     wire.Usage
		sessionCost *float64
		want        string
	}{
		{"priced, no cache", wire.Usage{InputTokens: 2130, OutputTokens: 12}, &cost, wire.Usage{InputTokens: 5023, OutputTokens: 36}, &total,
			"2,130 in (0% cache) · 12 out · $0.0072 · session 5,023 in, 36 out, $0.016"},
		{"unpriced, half from cache", wire.Usage{InputTokens: 1000, CacheReadTokens: 445, OutputTokens: 3}, nil, wire.Usage{InputTokens: 1234567, OutputTokens: 3}, nil,
			"1,000 in (45% cache) · 3 out · session 1,234,567 in, 3 out"},
		{"no input", wire.Usage{OutputTokens: 1}, nil, wire.Usage{OutputTokens: 1}, nil,
			"0 in · 1 out · session 0 in, 1 out"},
	}
	for _, tt := range tests {
		if got := UsageSummary(tt.turn, tt.cost, tt.session, tt.sessionCost); got != tt.want {
			t.Errorf("%s: UsageSummary = %q, want %q", tt.name, got, tt.want)
		}
	}
	for c, want := range map[float64]string{0.0049: "$0.0049", 0.5: "$0.500", 12.345: "$12.35"} {
		if got := Dollars(c); got != want {
			t.Errorf("Dollars(%v) = %q, want %q", c, got, want)
		}
	}
}
