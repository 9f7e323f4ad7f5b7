package modeltest

// Anthropic Messages: the event sequence of the streaming documentation —
// message_start, then per content block content_block_start, ping (after the
// first), content_block_delta..., content_block_stop, then message_delta and
// message_stop; an "error" event may arrive instead at any point.

const anthropicSignature = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"

func anthropicMessage(a answer, model string) map[string]any {
	var content []any
	if a.Thinking != "" {
		content = append(content, map[string]any{"type": "thinking", "thinking": a.Thinking, "signature": anthropicSignature})
	}
	if a.Text+a.Refusal != "" {
		content = append(content, map[string]any{"type": "text", "text": a.Text + a.Refusal})
	}
	for _, c := range a.calls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": rawOrEmpty(c.Input)})
	}
	if content == nil {
		content = []any{}
	}
	return map[string]any{
		"id": "msg_modeltest", "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": a.StopReason, "stop_sequence": nil,
		"usage": anthropicUsage(a, a.OutputTokens),
	}
}

// anthropicUsage splits the input as the API does: input_tokens is what was
// neither read from nor written to the cache.
func anthropicUsage(a answer, output int) map[string]any {
	return map[string]any{
		"input_tokens":                a.InputTokens - a.cache.read - a.cache.write,
		"cache_read_input_tokens":     a.cache.read,
		"cache_creation_input_tokens": a.cache.write,
		"output_tokens":               output,
	}
}

// rawOrEmpty embeds valid JSON as is and anything else as {} (a non-stream
// answer cannot carry invalid JSON inside a JSON document).
func rawOrEmpty(s string) any {
	var v any
	if err := jsonUnmarshal(s, &v); err != nil {
		return map[string]any{}
	}
	return v
}

func streamAnthropic(w *sseWriter, a answer, model string) {
	start := map[string]any{
		"id": "msg_modeltest", "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": anthropicUsage(a, 1),
	}
	w.event("message_start", mustJSON(map[string]any{"type": "message_start", "message": start}))
	index := 0
	// cut: the answer stops at max_tokens inside this block, which then
	// never gets its content_block_stop (as the API streams it).
	cut := false
	block := func(cb map[string]any, deltas []map[string]any) {
		w.event("content_block_start", mustJSON(map[string]any{"type": "content_block_start", "index": index, "content_block": cb}))
		if index == 0 {
			w.event("ping", []byte(`{"type": "ping"}`))
		}
		for i, d := range deltas {
			w.event("content_block_delta", mustJSON(map[string]any{"type": "content_block_delta", "index": index, "delta": d}))
			if a.Hang && i == 0 {
				w.hang()
				return
			}
		}
		if !cut {
			w.event("content_block_stop", mustJSON(map[string]any{"type": "content_block_stop", "index": index}))
		}
		index++
	}
	if a.Thinking != "" {
		var ds []map[string]any
		for _, p := range textDeltas(a.Thinking) {
			ds = append(ds, map[string]any{"type": "thinking_delta", "thinking": p})
		}
		ds = append(ds, map[string]any{"type": "signature_delta", "signature": anthropicSignature})
		block(map[string]any{"type": "thinking", "thinking": ""}, ds)
	}
	if a.Text != "" || a.Refusal != "" || (a.Hang && len(a.calls) == 0) {
		var ds []map[string]any
		for _, p := range append(a.textDeltas(), textDeltas(a.Refusal)...) {
			ds = append(ds, map[string]any{"type": "text_delta", "text": p})
		}
		if len(ds) == 0 {
			ds = append(ds, map[string]any{"type": "text_delta", "text": ""})
		}
		block(map[string]any{"type": "text", "text": ""}, ds)
	}
	if a.ErrorType != "" {
		w.event("error", mustJSON(map[string]any{"type": "error", "error": map[string]any{"type": a.ErrorType, "message": a.errorMessage()}}))
		return
	}
	for i, c := range a.calls {
		var ds []map[string]any
		for _, p := range inputChunks(c.Input) {
			ds = append(ds, map[string]any{"type": "input_json_delta", "partial_json": p})
		}
		cut = a.StopReason == "max_tokens" && i == len(a.calls)-1
		block(map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}, ds)
	}
	if w.dead {
		return
	}
	w.event("message_delta", mustJSON(map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": a.StopReason, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": a.OutputTokens},
	}))
	w.event("message_stop", []byte(`{"type":"message_stop"}`))
}
