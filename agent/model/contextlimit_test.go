package model

import (
	"errors"
	"fmt"
	"testing"
)

// Each server's context-exceeded error, as it sends it, is recognised and
// the window it names is read.
func TestContextExceededReadsEachServersError(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		window int
		ok     bool
	}{
		{"llama.cpp", &APIError{Status: 400, Type: "exceed_context_size_error", Message: "request (4565 tokens) exceeds the available context size (4096 tokens), try increasing it"}, 4096, true},
		{"OpenAI", &APIError{Status: 400, Type: "context_length_exceeded", Message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130001 tokens. Please reduce the length of the messages."}, 128000, true},
		{"vLLM 0.10", &APIError{Status: 400, Type: "BadRequestError", Message: "This model's maximum context length is 32768 tokens. However, you requested 33010 tokens (25010 in the messages, 8000 in the completion). Please reduce the length of the messages or completion."}, 32768, true},
		{"vLLM before 0.10", &APIError{Status: 400, Type: "BadRequestError", Message: "The decoder prompt (length 40961) is longer than the maximum model length of 40960."}, 40960, true},
		{"Anthropic", &APIError{Status: 400, Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"}, 200000, true},
		{"Anthropic, input and max_tokens", &APIError{Status: 400, Type: "invalid_request_error", Message: "input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease input length or `max_tokens` and try again"}, 200000, true},
		{"Ollama", &APIError{Status: 400, Type: "api_error", Message: "the input length exceeds the context length"}, 0, true},
		{"413 request too large", &APIError{Status: 413, Type: "request_too_large", Message: "too many tokens in the request"}, 0, true},
		{"wrapped", fmt.Errorf("turn: %w", &APIError{Status: 400, Type: "exceed_context_size_error", Message: "request (9 tokens) exceeds the available context size (8 tokens)"}), 8, true},
		{"another 400", &APIError{Status: 400, Type: "invalid_request_error", Message: "Invalid 'tools': array too long"}, 0, false},
		{"a 500 mentioning the window", &APIError{Status: 500, Message: "maximum context length is 4096"}, 0, false},
		{"not an API error", errors.New("prompt is too long"), 0, false},
	}
	for _, c := range cases {
		n, ok := ContextExceeded(c.err)
		if n != c.window || ok != c.ok {
			t.Errorf("%s: ContextExceeded = %d, %v; want %d, %v", c.name, n, ok, c.window, c.ok)
		}
	}
}
