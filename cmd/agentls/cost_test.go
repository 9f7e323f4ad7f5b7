package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// TestRunEndsWithTokensAndCost: the end of `agentls run` says the turn's
// tokens, cache share and context, and its cost at the [prices] of the
// user config (only --json said the tokens before); a model without a
// price shows no cost.
func TestRunEndsWithTokensAndCost(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	e.model.Script(modeltest.Turn{Text: "priced", InputTokens: 200000, OutputTokens: 1000})
	cfg, _ := os.ReadFile(e.config)
	os.WriteFile(e.config, append(cfg, "\n[prices.\"fake-model\"]\ninput = 3\noutput = 15\n"...), 0o600)
	code, _, stderr := e.run(t, "say something")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// 200k input at $3/M and 1k output at $15/M: $0.60 + $0.015, less
	// what the fake reports read from its cache (priced at 0 here).
	if !regexp.MustCompile(`agentls: 200,000 in( \(\d+% from cache\))? · 1,000 out · context \d+% of 200,000 · \$0\.[0-6]\d\d\n`).MatchString(stderr) {
		t.Errorf("stderr lacks the usage line with tokens and cost:\n%s", stderr)
	}

	e = newRunEnv(t, "anthropic", "")
	e.model.Script(modeltest.Turn{Text: "unpriced", InputTokens: 100, OutputTokens: 10})
	code, _, stderr = e.run(t, "say something")
	if code != 0 || !strings.Contains(stderr, "agentls: 100 in · 10 out") || strings.Contains(stderr, "$") {
		t.Errorf("exit %d; want the tokens without a cost:\n%s", code, stderr)
	}
}
