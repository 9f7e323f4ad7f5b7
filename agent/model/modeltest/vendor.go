package modeltest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/agent/model/providers"
)

// Vendor is whose OpenAI-compatible endpoint the server plays on the
// chat completions wire: how it streams reasoning and tool calls, and which
// of its own rules it enforces on the requests that follow, answering as
// that vendor's server does when one is broken. The zero Vendor is OpenAI.
type Vendor string

// The vendors the server can play.
const (
	OpenAI Vendor = ""
	// DeepSeek streams reasoning as delta.reasoning_content (content null
	// meanwhile) and, in thinking mode, refuses an assistant message with
	// tool calls that lacks its reasoning_content (400 "The
	// reasoning_content in the thinking mode must be passed back to the API.").
	DeepSeek Vendor = "deepseek"
	// Gemini is Gemini 3 through Google's OpenAI-compatible endpoint: each
	// tool call comes whole, without index or id, carrying
	// extra_content.google.thought_signature, finish_reason "stop"; a later
	// request whose tool call lacks the signature it was given is refused
	// (400, a JSON array, "Function call is missing a thought_signature in
	// functionCall parts...").
	Gemini Vendor = "gemini"
	// Groq streams reasoning as delta.reasoning and refuses it, or
	// reasoning_content, sent back on an assistant message (400 "property
	// 'reasoning' is unsupported").
	Groq Vendor = "groq"
	// OpenRouter streams reasoning as delta.reasoning, its parts in
	// reasoning_details (an encrypted one, a thought signature, before a
	// tool call), and plays Gemini 3 behind it: a later tool call message
	// without the reasoning_details it was given is refused with Google's
	// error wrapped in OpenRouter's ("Provider returned error", metadata.raw).
	OpenRouter Vendor = "openrouter"
	// Mistral's reasoning models (Magistral) stream delta.content as an
	// array of parts: {type: "thinking", thinking: [{type: "text", text}]}
	// for the reasoning, {type: "text", text} for the answer.
	Mistral Vendor = "mistral"
	// VLLM is vLLM before 0.10: an error after the stream began, and a
	// request over Limits.ContextWindow, come as a 200 stream holding its
	// ErrorResponse, {"object":"error","message":...,"code":400}, then
	// [DONE] (its own wording: "The decoder prompt (length N) is longer
	// than the maximum model length of W.").
	VLLM Vendor = "vllm"
)

// Vendors are the vendors the server can play besides OpenAI, each named
// as its row of providers.All.
var Vendors = []Vendor{DeepSeek, Gemini, Groq, OpenRouter, Mistral, VLLM}

// SetVendor makes the server play v on the chat completions wire for the
// requests that follow.
func (s *Server) SetVendor(v Vendor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vendor = v
}

// reasoningField is the delta field v streams reasoning in.
func (v Vendor) reasoningField() string {
	switch v {
	case Groq, OpenRouter:
		return "reasoning"
	}
	return "reasoning_content" // DeepSeek, and llama.cpp, vLLM, Qwen as OpenAI's stand-in
}

// skipSignature is the thought signature Google documents for a function
// call it did not make (one injected, or from another model): it skips
// the check.
const skipSignature = "skip_thought_signature_validator"

// thoughtSignature is the signature the Gemini endpoint gives tool call id.
func thoughtSignature(id string) string {
	return base64.StdEncoding.EncodeToString([]byte("modeltest-thought:" + id))
}

// sentMessages are the request's messages as the vendor rules read them.
type sentMessages struct {
	Messages []struct {
		Role             string  `json:"role"`
		ReasoningContent *string `json:"reasoning_content"`
		Reasoning        *string `json:"reasoning"`
		ReasoningDetails []struct {
			Type string `json:"type"`
			Data string `json:"data"`
		} `json:"reasoning_details"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
			ExtraContent struct {
				Google struct {
					ThoughtSignature string `json:"thought_signature"`
				} `json:"google"`
			} `json:"extra_content"`
		} `json:"tool_calls"`
	} `json:"messages"`
}

// checkVendor says which of the vendor's rules the request breaks, if any.
func (s *Server) checkVendor(format providers.Wire, body []byte) *refusal {
	s.mu.Lock()
	v := s.vendor
	issued := s.signatures
	s.mu.Unlock()
	if format != providers.ChatCompletions || v == OpenAI {
		return nil
	}
	var req sentMessages
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	for i, m := range req.Messages {
		if m.Role != "assistant" {
			continue
		}
		switch v {
		case DeepSeek:
			if len(m.ToolCalls) > 0 && m.ReasoningContent == nil {
				return &refusal{status: 400, typ: "invalid_request_error", code: "invalid_request_error",
					m: "The reasoning_content in the thinking mode must be passed back to the API."}
			}
		case Groq:
			field := ""
			switch {
			case m.Reasoning != nil:
				field = "reasoning"
			case m.ReasoningContent != nil:
				field = "reasoning_content"
			}
			if field != "" {
				return &refusal{status: 400, typ: "invalid_request_error",
					m: fmt.Sprintf("'messages.%d' : for 'role:assistant' the following must be satisfied[('messages.%d' : property '%s' is unsupported)]", i, i, field)}
			}
		case OpenRouter:
			if len(m.ToolCalls) == 0 || len(issued) == 0 {
				continue // nothing was handed out to come back
			}
			signed := false
			for _, d := range m.ReasoningDetails {
				signed = signed || d.Type == "reasoning.encrypted" && issued[d.Data]
			}
			if !signed {
				raw := mustJSON(map[string]any{"error": map[string]any{"code": 400, "status": "INVALID_ARGUMENT",
					"message": fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", m.ToolCalls[0].Function.Name, i+1)}})
				return &refusal{status: 400, raw: mustJSON(map[string]any{"error": map[string]any{"message": "Provider returned error", "code": 400,
					"metadata": map[string]any{"raw": string(raw), "provider_name": "Google AI Studio"}}})}
			}
		case Gemini:
			for _, c := range m.ToolCalls {
				if sig := c.ExtraContent.Google.ThoughtSignature; sig == "" || !issued[sig] && sig != skipSignature {
					msg := fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", c.Function.Name, i+1)
					raw := mustJSON([]any{map[string]any{"error": map[string]any{"code": 400, "message": msg, "status": "INVALID_ARGUMENT"}}})
					return &refusal{status: 400, raw: raw}
				}
			}
		}
	}
	return nil
}

// issue records the thought signatures a Gemini answer hands out.
func (s *Server) issue(a *answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a.vendor = s.vendor
	if s.vendor != Gemini && (s.vendor != OpenRouter || a.Thinking == "") {
		return
	}
	if s.signatures == nil {
		s.signatures = map[string]bool{}
	}
	for _, c := range a.calls {
		s.signatures[thoughtSignature(c.ID)] = true
	}
}
