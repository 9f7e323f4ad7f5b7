package modeltest

import "encoding/json"

// OpenAI chat completions: a stream of data-only chat.completion.chunk
// objects (choices[0].delta with content or tool_calls fragments keyed by
// index, then a finish_reason), a final chunk with empty choices carrying
// usage when stream_options.include_usage is set, and "data: [DONE]".

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// finishReason maps the Anthropic-style stop reason onto OpenAI's.
func finishReason(stop string) string {
	switch stop {
	case "end_turn":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	case "refusal":
		return "stop" // OpenAI's refusal is in the delta; the turn ends as usual
	}
	return stop
}

func openaiUsage(a answer) map[string]any {
	return map[string]any{"prompt_tokens": a.InputTokens, "completion_tokens": a.OutputTokens, "total_tokens": a.InputTokens + a.OutputTokens,
		"prompt_tokens_details": map[string]any{"cached_tokens": a.cache.read}}
}

func openaiCompletion(a answer, model string) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil}
	if a.Text != "" {
		msg["content"] = a.Text
	}
	if a.Thinking != "" {
		msg[a.vendor.reasoningField()] = a.Thinking
	}
	if a.Refusal != "" {
		msg["refusal"] = a.Refusal
	}
	if len(a.calls) > 0 {
		var calls []any
		for _, c := range a.calls {
			call := map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Input}}
			if a.vendor == Gemini {
				call["extra_content"] = map[string]any{"google": map[string]any{"thought_signature": thoughtSignature(c.ID)}}
			}
			calls = append(calls, call)
		}
		msg["tool_calls"] = calls
	}
	return map[string]any{
		"id": "chatcmpl-modeltest", "object": "chat.completion", "created": 1700000000, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finishReason(a.StopReason)}},
		"usage":   openaiUsage(a),
	}
}

func streamOpenAI(w *sseWriter, a answer, model string) {
	chunk := func(delta map[string]any, finish any) []byte {
		c := map[string]any{
			"id": "chatcmpl-modeltest", "object": "chat.completion.chunk", "created": 1700000000, "model": model,
			"system_fingerprint": "fp_modeltest",
			"choices":            []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		}
		if a.vendor == Gemini { // Google's chunks: no fingerprint, no logprobs
			delete(c, "system_fingerprint")
			c["choices"] = []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
		}
		return mustJSON(c)
	}
	first := map[string]any{"role": "assistant", "content": "", "refusal": nil}
	if a.Thinking != "" || a.Refusal != "" {
		first = map[string]any{"role": "assistant", "content": nil}
	}
	w.event("", chunk(first, nil))
	if a.Thinking != "" {
		field := a.vendor.reasoningField()
		for _, p := range textDeltas(a.Thinking) {
			d := map[string]any{"content": nil, field: p}
			if a.vendor == Mistral {
				d = map[string]any{"content": []any{map[string]any{"type": "thinking", "thinking": []any{map[string]any{"type": "text", "text": p}}}}}
			}
			if a.vendor == OpenRouter {
				// OpenRouter repeats role and content in every delta, and
				// the reasoning's parts in reasoning_details.
				d = map[string]any{"role": "assistant", "content": "", field: p,
					"reasoning_details": []any{map[string]any{"type": "reasoning.text", "text": p, "format": "unknown", "index": 0}}}
			}
			w.event("", chunk(d, nil))
		}
		if a.vendor == OpenRouter && len(a.calls) > 0 {
			w.event("", chunk(map[string]any{"role": "assistant", "content": "", "reasoning_details": []any{map[string]any{
				"type": "reasoning.encrypted", "data": thoughtSignature(a.calls[0].ID), "id": a.calls[0].ID, "format": "google-gemini-v1", "index": 1,
			}}}, nil))
		}
	}
	for _, p := range textDeltas(a.Refusal) {
		w.event("", chunk(map[string]any{"content": nil, "refusal": p}, nil))
	}
	for i, p := range a.textDeltas() {
		if a.vendor == Mistral {
			w.event("", chunk(map[string]any{"content": []any{map[string]any{"type": "text", "text": p}}}, nil))
		} else {
			w.event("", chunk(map[string]any{"content": p}, nil))
		}
		if a.Hang && i == 0 {
			w.hang()
			return
		}
	}
	if a.Hang {
		w.hang()
		return
	}
	if a.ErrorType != "" && a.vendor == VLLM {
		w.event("", vllmError(a.errorMessage(), 400))
		w.event("", []byte("[DONE]"))
		return
	}
	if a.ErrorType != "" {
		w.event("", mustJSON(openaiError(a.ErrorType, a.errorMessage())))
		return
	}
	for i, c := range a.calls {
		if a.vendor == Gemini {
			// Gemini sends each call whole, with no index and no id, and its
			// thought signature beside the function.
			w.event("", chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{
				"extra_content": map[string]any{"google": map[string]any{"thought_signature": thoughtSignature(c.ID)}},
				"function":      map[string]any{"name": c.Name, "arguments": c.Input}, "type": "function",
			}}}, nil))
			continue
		}
		w.event("", chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""},
		}}}, nil))
		for _, p := range inputChunks(c.Input) {
			w.event("", chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": p},
			}}}, nil))
		}
	}
	finish := finishReason(a.StopReason)
	if a.vendor == Gemini && finish == "tool_calls" {
		finish = "stop" // Gemini ends a tool call turn with "stop"
	}
	w.event("", chunk(map[string]any{}, finish))
	w.event("", mustJSON(map[string]any{
		"id": "chatcmpl-modeltest", "object": "chat.completion.chunk", "created": 1700000000, "model": model,
		"system_fingerprint": "fp_modeltest", "choices": []any{}, "usage": openaiUsage(a),
	}))
	w.event("", []byte("[DONE]"))
}

// vllmError is vLLM's ErrorResponse as versions before 0.10 send it in the
// middle of a stream: no "error" key.
func vllmError(msg string, code int) []byte {
	return mustJSON(map[string]any{"object": "error", "message": msg, "type": "BadRequestError", "param": nil, "code": code})
}
