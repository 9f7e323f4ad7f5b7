package model

import (
	"context"
	"errors"
	"fmt"
)

// fallback is the guessed local Ollama: its errors say what to configure,
// since the user never asked for Ollama.
type fallback struct {
	Provider
	url, model string
}

// Stream calls Ollama, rewording the errors a user who never chose it cannot act on.
func (f *fallback) Stream(ctx context.Context, req Request, onText func(string)) (*Response, error) {
	resp, err := f.Provider.Stream(ctx, req, onText)
	var ce *ConnectError
	var me *ModelError
	switch {
	case errors.As(err, &ce):
		return nil, &NoModelError{URL: f.url, Err: ce}
	case errors.As(err, &me):
		me.Hint = fmt.Sprintf("(or run `ollama pull %s`; no API key variable is set, so agentls tried Ollama)", f.model)
		return nil, me
	}
	return resp, err
}
