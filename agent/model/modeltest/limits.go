package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/agentls/agentls/agent/model/providers"
)

// Limits makes the server refuse what the real APIs refuse. The zero value
// enforces only what both APIs always enforce here (at most 4 cache_control
// blocks on the Anthropic wire).
type Limits struct {
	// ContextWindow refuses a request whose input tokens (bytes/4, as the
	// usage reports them) exceed it, with the provider's context-length
	// error. 0: no window.
	ContextWindow int
	// MaxTools refuses an OpenAI request offering more tools, as the real
	// API does above 128. 0: no limit.
	MaxTools int
	// AnyTools takes every tool definition, as a self-hosted server
	// (llama.cpp, vLLM) does, instead of refusing what the provider the
	// fake plays refuses: the peers' comparison (internal/bench) measures
	// agents whose definitions OpenAI refuses.
	AnyTools bool
}

// SetLimits sets the limits for the requests that follow.
func (s *Server) SetLimits(l Limits) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits = l
}

// Billing is what the requests so far cost, in tokens, as the provider
// would bill them: Input counts every input token, cached ones included;
// CacheRead and CacheWrite are the parts of it read from and written to the
// prompt cache.
type Billing struct {
	Requests                      int
	Input, CacheRead, CacheWrite  int
	Output                        int
	MaxInput                      int // the largest single request
	MaxCacheControl, MaxToolCount int // the most markers / tools any request carried
}

// CachedShare is CacheRead / Input (0 when nothing was billed).
func (b Billing) CachedShare() float64 {
	if b.Input == 0 {
		return 0
	}
	return float64(b.CacheRead) / float64(b.Input)
}

// Billing returns the totals of every answered model request so far.
func (s *Server) Billing() Billing {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.billing
}

// refusal is a limit a request broke, in the provider's error shape.
type refusal struct {
	context             bool // the request passed Limits.ContextWindow
	status              int
	typ, code, param, m string
	raw                 []byte // a whole body of the vendor's own shape, instead
}

// checkLimits says which limit, if any, the request breaks.
func (s *Server) checkLimits(format providers.Wire, body []byte, inputTokens, marks int) *refusal {
	s.mu.Lock()
	l := s.limits
	s.mu.Unlock()
	if format == providers.Messages && marks > MaxCacheControl {
		return &refusal{status: 400, typ: "invalid_request_error",
			m: fmt.Sprintf("A maximum of %d blocks with cache_control may be provided. Found %d.", MaxCacheControl, marks)}
	}
	if format == providers.ChatCompletions && l.MaxTools > 0 {
		var v struct {
			Tools []json.RawMessage `json:"tools"`
		}
		json.Unmarshal(body, &v)
		if len(v.Tools) > l.MaxTools {
			return &refusal{status: 400, typ: "invalid_request_error", code: "array_above_max_length", param: "tools",
				m: fmt.Sprintf("Invalid 'tools': array too long. Expected an array with maximum length %d, but got an array with length %d instead.", l.MaxTools, len(v.Tools))}
		}
	}
	var head struct {
		Model string `json:"model"`
	}
	json.Unmarshal(body, &head)
	if r := checkTools(ToolDialectFor(format, head.Model), body); r != nil && !l.AnyTools {
		return r
	}
	if l.ContextWindow > 0 && inputTokens > l.ContextWindow {
		if format == providers.Messages {
			return &refusal{status: 400, typ: "invalid_request_error",
				m: fmt.Sprintf("prompt is too long: %d tokens > %d maximum", inputTokens, l.ContextWindow)}
		}
		return &refusal{status: 400, typ: "invalid_request_error", code: "context_length_exceeded", param: "messages", context: true,
			m: fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", l.ContextWindow, inputTokens)}
	}
	return nil
}

func writeRefusal(w http.ResponseWriter, format providers.Wire, r *refusal) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.status)
	if r.raw != nil {
		w.Write(r.raw)
		return
	}
	if format == providers.Messages {
		w.Write(mustJSON(map[string]any{"type": "error", "error": map[string]any{"type": r.typ, "message": r.m}}))
		return
	}
	var code, param any
	if r.code != "" {
		code = r.code
	}
	if r.param != "" {
		param = r.param
	}
	w.Write(mustJSON(map[string]any{"error": map[string]any{"message": r.m, "type": r.typ, "param": param, "code": code}}))
}
