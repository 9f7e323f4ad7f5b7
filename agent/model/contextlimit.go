package model

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// contextWindowIn finds the window a context-exceeded message names, by
// the wording of each server that says it:
//
//	llama.cpp  request (4565 tokens) exceeds the available context size (4096 tokens)
//	OpenAI     This model's maximum context length is 128000 tokens. However, ...
//	vLLM       This model's maximum context length is 4096 tokens ... (0.10 and later)
//	vLLM       The decoder prompt (length 40961) is longer than the maximum model length of 40960.
//	Anthropic  prompt is too long: 210000 tokens > 200000 maximum
//	Anthropic  input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease ...
//	others     ... exceeds the model's context length of 8192 / context window of 8192
var contextWindowIn = []*regexp.Regexp{
	regexp.MustCompile(`context size \((\d+) tokens\)`),
	regexp.MustCompile(`maximum context length is (\d+)`),
	regexp.MustCompile(`maximum model length of (\d+)`),
	regexp.MustCompile(`tokens > (\d+) maximum`),
	regexp.MustCompile(`exceed context limit: \d+ \+ \d+ > (\d+)`),
	regexp.MustCompile(`context (?:length|window|size) (?:of|is) (\d+)`),
}

// contextExceededWords are the phrases of a context-exceeded error without
// a figure (Ollama's "the input length exceeds the context length").
var contextExceededWords = []string{
	"exceed_context_size_error", "context_length_exceeded", "prompt is too long", "maximum context length",
	"maximum model length", "context window", "too many tokens", "exceeds the context", "exceeds the available context",
	"context length", "input length exceeds", "exceed context limit",
}

// ContextExceeded reports whether err is an endpoint refusing a request as
// longer than its model's context window (llama.cpp's
// exceed_context_size_error, vLLM's, Ollama's, OpenAI's
// context_length_exceeded, Anthropic's "prompt is too long" and its "input
// length and `max_tokens` exceed context limit"), and the window
// it names (0 when it names none).
func ContextExceeded(err error) (window int, ok bool) {
	var api *APIError
	if !errors.As(err, &api) || (api.Status != 400 && api.Status != 413) {
		return 0, false
	}
	m := strings.ToLower(api.Message + " " + api.Type)
	found := false
	for _, w := range contextExceededWords {
		if strings.Contains(m, w) {
			found = true
			break
		}
	}
	if !found {
		return 0, false
	}
	for _, re := range contextWindowIn {
		if sub := re.FindStringSubmatch(m); sub != nil {
			if n, err := strconv.Atoi(sub[1]); err == nil && n > 0 {
				return n, true
			}
		}
	}
	return 0, true
}
