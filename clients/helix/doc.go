// Package helix holds agentls's Helix setup: languages.toml (agentls beside
// each language's default servers), the script that prints those entries for
// chosen languages, the guide, and the tests that check all three against a
// real Helix 25.01. It has no Go code of its own and must never grow any:
// Helix is configured, not extended.
package helix
