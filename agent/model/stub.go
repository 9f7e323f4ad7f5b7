package model

// STUB: the contract other packages compile against. The model owner
// replaces the bodies; the signatures may grow but should not change.

import (
	"errors"

	"github.com/agentls/agentls/config"
)

// Resolved is the provider agentls would use, after SPEC.md's defaults.
type Resolved struct {
	Provider  string // "anthropic" | "openai"
	Name      string
	BaseURL   string
	APIKeyEnv string // "" when no key is needed (local endpoint)
	KeySet    bool
	MaxTokens int
	Why       string // how it was chosen, for `agentls doctor`
}

// Resolve applies SPEC.md's defaults to the [model] table.
func Resolve(cfg config.Model, getenv func(string) string) (Resolved, error) {
	return Resolved{}, errors.New("unimplemented")
}

// New builds the provider for the [model] table.
func New(cfg config.Model, getenv func(string) string) (Provider, error) {
	return nil, errors.New("unimplemented")
}
