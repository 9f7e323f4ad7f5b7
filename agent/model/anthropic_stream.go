package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// anthropicEvent is the union of the Messages streaming events' fields.
type anthropicEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message struct {
		Usage anthropicUsage `json:"usage"`
	} `json:"message"`
	ContentBlock struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
		Input     json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage anthropicUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type anthropicUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
}

// usage is the neutral Usage: Anthropic's input_tokens leaves out what was
// read from or written to the cache; InputTokens counts all of it.
func (u anthropicUsage) usage() Usage {
	return Usage{
		InputTokens:      u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
		OutputTokens:     u.OutputTokens,
		CacheReadTokens:  u.CacheReadInputTokens,
		CacheWriteTokens: u.CacheCreationInputTokens,
	}
}

// anthropicStatus is the HTTP status an error event's type stands for.
func anthropicStatus(typ string) int {
	switch typ {
	case "overloaded_error":
		return 529
	case "rate_limit_error":
		return 429
	case "invalid_request_error":
		return 400
	case "authentication_error":
		return 401
	case "permission_error":
		return 403
	case "not_found_error":
		return 404
	}
	return 500
}

// decodeAnthropic reads a Messages event stream into a Response.
func decodeAnthropic(body io.Reader, emit sink) (*Response, error) {
	sse := newSSEReader(body)
	defer sse.release()
	out := &Response{}
	blocks := map[int]*Block{}
	// acc accumulates each block's deltas (text, thinking or tool input);
	// finish moves them into the block.
	acc := map[int]*strings.Builder{}
	startInputs := map[int]string{} // input sent whole in content_block_start (some proxies)
	finish := func(i int) {
		b, a := blocks[i], acc[i]
		if b == nil || a == nil {
			return
		}
		switch b.Type {
		case "text":
			b.Text = a.String()
		case "thinking":
			b.Thinking = a.String()
		case "tool_use":
			b.Input, b.InvalidInput = toolInput(orStart(a.String(), startInputs[i]))
		}
		delete(acc, i)
	}
	started := false
	for {
		ev, err := sse.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("stream ended before message_stop")
			} else {
				err = brokenOff("message_stop", err)
			}
			return nil, &streamError{err: fmt.Errorf("anthropic: %w", err), retry: true}
		}
		var e anthropicEvent
		if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
			return nil, &streamError{err: fmt.Errorf("anthropic: bad %q event %.200q: %w", ev.Event, ev.Data, err)}
		}
		if e.Type == "" {
			e.Type = ev.Event
		}
		switch e.Type {
		case "message_start":
			started = true
			out.Usage = e.Message.Usage.usage()
		case "content_block_start":
			cb := e.ContentBlock
			b := &Block{Type: cb.Type}
			a := &strings.Builder{}
			switch cb.Type {
			case "text":
				a.WriteString(cb.Text)
				emit.say(cb.Text)
			case "tool_use":
				b.ID, b.Name = cb.ID, cb.Name
				startInputs[e.Index] = string(cb.Input)
			case "thinking":
				a.WriteString(cb.Thinking)
				emit.think(cb.Thinking)
				b.Signature = cb.Signature
			case "redacted_thinking":
				b.Data = cb.Data
			}
			blocks[e.Index], acc[e.Index] = b, a
		case "content_block_delta":
			b, a := blocks[e.Index], acc[e.Index]
			if b == nil || a == nil {
				return nil, &streamError{err: fmt.Errorf("anthropic: delta for block %d that is not open", e.Index)}
			}
			switch e.Delta.Type {
			case "text_delta":
				a.WriteString(e.Delta.Text)
				emit.say(e.Delta.Text)
			case "input_json_delta":
				a.WriteString(e.Delta.PartialJSON)
			case "thinking_delta":
				a.WriteString(e.Delta.Thinking)
				emit.think(e.Delta.Thinking)
			case "signature_delta":
				b.Signature += e.Delta.Signature
			}
		case "content_block_stop":
			finish(e.Index)
		case "message_delta":
			if e.Delta.StopReason != "" {
				out.StopReason = e.Delta.StopReason
			}
			if e.Usage.OutputTokens > 0 {
				out.Usage.OutputTokens = e.Usage.OutputTokens
			}
			if e.Usage.InputTokens > 0 || e.Usage.CacheReadInputTokens > 0 || e.Usage.CacheCreationInputTokens > 0 {
				u := e.Usage.usage()
				out.Usage.InputTokens, out.Usage.CacheReadTokens, out.Usage.CacheWriteTokens = u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens
			}
		case "message_stop":
			if !started {
				return nil, &streamError{err: errors.New("anthropic: message_stop without message_start")}
			}
			for i := range acc { // blocks that never got their stop
				finish(i)
			}
			out.Content = ordered(blocks)
			return out, nil
		case "error":
			api := &APIError{Provider: "anthropic", Status: 500, Message: "error event without details"}
			if e.Error != nil {
				api.Type, api.Message, api.Status = e.Error.Type, e.Error.Message, anthropicStatus(e.Error.Type)
			}
			return nil, &streamError{err: api, retry: api.retryable()}
		}
		// ping and unknown events are ignored, as the docs ask of clients.
	}
}

// orStart is the streamed input, or the one content_block_start carried
// when no input_json_delta came.
func orStart(streamed, start string) string {
	if strings.TrimSpace(streamed) == "" {
		return start
	}
	return streamed
}

// ordered lists blocks by their stream index.
func ordered(blocks map[int]*Block) []Block {
	idx := make([]int, 0, len(blocks))
	for i := range blocks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]Block, 0, len(idx))
	for _, i := range idx {
		out = append(out, *blocks[i])
	}
	return out
}

// toolInput turns accumulated argument text into a JSON object. Empty input
// means no arguments ({}); anything that is not a JSON object also becomes
// {} and is returned as invalid so the caller can tell the model instead of
// running the tool on arguments it did not mean.
func toolInput(s string) (json.RawMessage, string) {
	t := strings.TrimSpace(s)
	if t == "" {
		return json.RawMessage(`{}`), ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(t), &m) != nil || m == nil {
		return json.RawMessage(`{}`), s
	}
	return json.RawMessage(t), ""
}
