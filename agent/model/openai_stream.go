package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

type openaiChunk struct {
	Choices []struct {
		Delta struct {
			// Content is a string, or (Mistral's reasoning models) an array
			// of {type: "text"|"thinking"} parts: see contentParts.
			Content json.RawMessage `json:"content"`
			// The reasoning, by the field each server names it; some
			// (newer vLLM) send both with the same text.
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
			Refusal          string `json:"refusal"` // OpenAI: the model declined; this is its text
			// ReasoningDetails (OpenRouter) are the reasoning's parts as the
			// model behind it made them (text with a signature, encrypted
			// data), in pieces keyed by index: kept whole to be sent back.
			ReasoningDetails []map[string]any `json:"reasoning_details"`
			ToolCalls        []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
				// ExtraContent is what a provider attaches to the call
				// (Gemini: {"google": {"thought_signature": ...}}).
				ExtraContent json.RawMessage `json:"extra_content"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *openaiUsage    `json:"usage"`
	Error json.RawMessage `json:"error"`
	// vLLM before 0.10 sends a mid-stream error as its ErrorResponse,
	// {"object":"error","message":...,"type":...,"code":400}, with no
	// "error" key.
	Object  string `json:"object"`
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

// contentParts reads a delta's content: a string (the usual), or an array
// of parts, {type: "text", text} and {type: "thinking", thinking: string or
// [{type: "text", text}]} (Mistral's Magistral). It returns the answer's
// text and the reasoning's.
func contentParts(raw json.RawMessage) (text, thinking string, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", "", nil
	}
	if raw[0] == '"' {
		err = json.Unmarshal(raw, &text)
		return text, "", err
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", "", fmt.Errorf("content is neither a string nor an array of parts: %w", err)
	}
	var t, th strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "text":
			t.WriteString(p.Text)
		case "thinking":
			inner, _, err := contentParts(p.Thinking)
			if err != nil {
				return "", "", err
			}
			th.WriteString(inner)
		}
	}
	return t.String(), th.String(), nil
}

// pendingCall is a tool call being assembled from deltas.
type pendingCall struct {
	id, name string
	args     strings.Builder
	extra    json.RawMessage
}

// decodeOpenAI reads a chat completions chunk stream into a Response.
func decodeOpenAI(body io.Reader, emit sink) (*Response, error) {
	sse := newSSEReader(body)
	defer sse.release()
	out := &Response{}
	var text, reasoning, refusal strings.Builder
	var details reasoningDetails
	field := "" // the field the reasoning came in
	var calls []*pendingCall
	slot := map[int]int{} // delta index -> position in calls
	finish := ""
	for {
		ev, err := sse.Next()
		if errors.Is(err, io.EOF) {
			if finish == "" {
				return nil, &streamError{err: errors.New("openai: stream ended before a finish_reason"), retry: true}
			}
			break // some servers end without [DONE]
		}
		if err != nil {
			return nil, &streamError{err: fmt.Errorf("openai: %w", brokenOff("a finish_reason", err)), retry: true}
		}
		if strings.TrimSpace(ev.Data) == "[DONE]" {
			if finish == "" {
				return nil, &streamError{err: errors.New("openai: stream ended before a finish_reason"), retry: true}
			}
			break
		}
		var c openaiChunk
		if err := json.Unmarshal([]byte(ev.Data), &c); err != nil {
			return nil, &streamError{err: fmt.Errorf("openai: bad chunk %.200q: %w", ev.Data, err)}
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			typ, msg := parseError([]byte(`{"error":` + string(c.Error) + `}`))
			api := &APIError{Provider: "openai", Status: openaiStatus(typ), Type: typ, Message: msg}
			return nil, &streamError{err: api, retry: api.retryable()}
		}
		if c.Object == "error" {
			status := openaiStatus(c.Type)
			if n, ok := c.Code.(float64); ok && n >= 400 && n < 600 {
				status = int(n)
			}
			api := &APIError{Provider: "openai", Status: status, Type: c.Type, Message: c.Message}
			return nil, &streamError{err: api, retry: api.retryable()}
		}
		if c.Usage != nil {
			out.Usage = c.Usage.usage()
		}
		if len(c.Choices) == 0 {
			continue
		}
		ch := c.Choices[0]
		content, thought, err := contentParts(ch.Delta.Content)
		if err != nil {
			return nil, &streamError{err: fmt.Errorf("openai: bad chunk %.200q: %w", ev.Data, err)}
		}
		r, f := reasoningOf(ch.Delta.ReasoningContent, ch.Delta.Reasoning)
		if r == "" && thought != "" {
			// Mistral's thinking parts: shown as reasoning, never sent back
			// (echo knows no "thinking" field).
			r, f = thought, "thinking"
		}
		if r != "" {
			if field == "" {
				field = f
			}
			reasoning.WriteString(r)
			emit.think(r)
		}
		details.add(ch.Delta.ReasoningDetails)
		if content != "" {
			text.WriteString(content)
			emit.say(content)
		}
		if ch.Delta.Refusal != "" {
			refusal.WriteString(ch.Delta.Refusal)
			emit.say(ch.Delta.Refusal)
		}
		for _, tc := range ch.Delta.ToolCalls {
			idx := len(calls) // no index: a server sending whole calls
			if tc.Index != nil {
				idx = *tc.Index
			}
			pos, ok := slot[idx]
			// A new id at a known index is a new call (servers that reuse index 0).
			if !ok || tc.ID != "" && calls[pos].id != "" && calls[pos].id != tc.ID {
				calls = append(calls, &pendingCall{})
				pos = len(calls) - 1
				slot[idx] = pos
			}
			p := calls[pos]
			if tc.ID != "" {
				p.id = tc.ID
			}
			if p.name == "" {
				p.name = tc.Function.Name
			}
			p.args.WriteString(tc.Function.Arguments)
			if len(tc.ExtraContent) > 0 && string(tc.ExtraContent) != "null" {
				p.extra = tc.ExtraContent
			}
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			finish = *ch.FinishReason
		}
	}
	if reasoning.Len() > 0 || len(details) > 0 {
		out.Content = append(out.Content, Block{Type: "thinking", Thinking: reasoning.String(), Field: field, Extra: details.raw()})
	}
	if text.Len() > 0 || refusal.Len() > 0 {
		out.Content = append(out.Content, Block{Type: "text", Text: text.String() + refusal.String()})
	}
	for i, p := range calls {
		b := Block{Type: "tool_use", ID: p.id, Name: p.name, Extra: p.extra}
		if b.ID == "" { // some local servers send no id; results must still pair up
			b.ID = fmt.Sprintf("call_%d", i)
		}
		b.Input, b.InvalidInput = toolInput(p.args.String())
		out.Content = append(out.Content, b)
	}
	out.StopReason = stopReason(finish, len(calls) > 0)
	if refusal.Len() > 0 {
		out.StopReason = "refusal"
	}
	return out, nil
}

// reasoningOf picks a delta's reasoning and the field it came in:
// reasoning_content, else reasoning (a server sending both sends the same
// text twice).
func reasoningOf(reasoningContent, reasoning string) (string, string) {
	if reasoningContent != "" {
		return reasoningContent, "reasoning_content"
	}
	if reasoning != "" {
		return reasoning, "reasoning"
	}
	return "", ""
}

// stopReason maps finish_reason onto the Anthropic-style names Response uses.
func stopReason(finish string, hasCalls bool) string {
	switch {
	case finish == "length":
		return "max_tokens"
	case hasCalls || finish == "tool_calls" || finish == "function_call":
		return "tool_use"
	case finish == "stop":
		return "end_turn"
	}
	return finish
}

// openaiStatus is the HTTP status an in-stream error type stands for.
func openaiStatus(typ string) int {
	switch typ {
	case "rate_limit_error", "rate_limit_exceeded":
		return 429
	case "overloaded_error":
		return 529
	case "invalid_request_error":
		return 400
	}
	return 500
}

// openaiUsage is the usage object of chat completions; cached_tokens is
// the part of prompt_tokens served from the automatic prompt cache.
type openaiUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func (u openaiUsage) usage() Usage {
	return Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, CacheReadTokens: u.PromptTokensDetails.CachedTokens}
}

// reasoningDetails accumulates OpenRouter's reasoning_details: a piece
// with the index of one already seen continues it (its text and summary
// appended, other fields set), one with a new index (or none) starts
// another.
type reasoningDetails []map[string]any

func (d *reasoningDetails) add(pieces []map[string]any) {
	for _, p := range pieces {
		if p == nil {
			continue
		}
		var into map[string]any
		if idx, ok := p["index"]; ok {
			for _, have := range *d {
				if have["index"] == idx {
					into = have
					break
				}
			}
		}
		if into == nil {
			*d = append(*d, p)
			continue
		}
		for k, v := range p {
			s, isString := v.(string)
			prev, hadString := into[k].(string)
			if (k == "text" || k == "summary") && isString && hadString {
				into[k] = prev + s
			} else if v != nil {
				into[k] = v
			}
		}
	}
}

// raw is the details as JSON, nil when there are none.
func (d reasoningDetails) raw() json.RawMessage {
	if len(d) == 0 {
		return nil
	}
	b, err := json.Marshal([]map[string]any(d))
	if err != nil {
		return nil
	}
	return b
}
