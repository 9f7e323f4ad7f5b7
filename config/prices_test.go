package config

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPricesOverrideTheDefaultsPerModel: [prices."name"] in the user
// config adds a model or overrides a default one key by key; a longer
// name wins over a shorter start of it; a workspace file cannot set it;
// a bad value says what was expected.
func TestPricesOverrideTheDefaultsPerModel(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "config.toml")
	os.WriteFile(user, []byte(`
[prices."my-local-model"]
input = 0
output = 0

[prices."claude-sonnet-4"]
input = 2.5

[prices."gpt-4o"]
output = "ten"
frob = 1
`), 0o600)
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(filepath.Join(ws, ".agentls"), 0o755)
	os.WriteFile(filepath.Join(ws, ".agentls", "config.toml"), []byte("[prices.\"claude-sonnet-4\"]\ninput = 0\n"), 0o644)
	c := Load(user, []string{ws})

	for _, tc := range []struct {
		model string
		want  Price
		ok    bool
	}{
		{"my-local-model", Price{}, true},
		{"claude-sonnet-4-5-20250929", Price{Input: 2.5, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}, true}, // the rest of the default kept
		{"claude-opus-4-5-20251101", DefaultPrices["claude-opus-4-5"], true},                                  // longer beats claude-opus-4
		{"gpt-4o-mini-2024-07-18", DefaultPrices["gpt-4o-mini"], true},
		{"gpt-4o", DefaultPrices["gpt-4o"], true}, // the bad output left the default
		{"qwen2.5-coder:7b", Price{}, false},
	} {
		got, ok := PriceOf(c.Prices, tc.model)
		if got != tc.want || ok != tc.ok {
			t.Errorf("PriceOf(%q) = %+v, %v; want %+v, %v", tc.model, got, ok, tc.want, tc.ok)
		}
	}
	var said []string
	for _, d := range c.Diagnostics {
		said = append(said, d.String())
	}
	all := strings.Join(said, "\n")
	for _, want := range []string{"a number of dollars per million tokens", "prices.gpt-4o.frob: unknown key", "a repository must not say what your tokens cost"} {
		if !strings.Contains(all, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, all)
		}
	}
}

func TestPriceCost(t *testing.T) {
	p := Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	// 1M input of which 600k read from the cache and 100k written to it.
	got := p.Cost(1_000_000, 10_000, 600_000, 100_000)
	want := 0.3*3 + 0.01*15 + 0.6*0.3 + 0.1*3.75
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("Cost = %v, want %v", got, want)
	}
}
