package model

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Whole JSON answers, for servers that answer application/json although
// the request asked to stream.

// anthropicMessageJSON decodes a Messages API message object.
func anthropicMessageJSON(raw []byte) (*Response, error) {
	var m struct {
		Type    string `json:"type"`
		Content []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			Thinking  string          `json:"thinking"`
			Signature string          `json:"signature"`
			Data      string          `json:"data"`
		} `json:"content"`
		StopReason string         `json:"stop_reason"`
		Usage      anthropicUsage `json:"usage"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.Type != "message" {
		return nil, fmt.Errorf("anthropic: answer is neither an event stream nor a message: %.200q", raw)
	}
	out := &Response{StopReason: m.StopReason, Usage: m.Usage.usage()}
	for _, c := range m.Content {
		b := Block{Type: c.Type, Text: c.Text, ID: c.ID, Name: c.Name, Thinking: c.Thinking, Signature: c.Signature, Data: c.Data}
		if c.Type == "tool_use" {
			b.Input, b.InvalidInput = toolInput(string(c.Input))
		}
		out.Content = append(out.Content, b)
	}
	return out, nil
}

// openaiCompletionJSON decodes a chat.completion object.
func openaiCompletionJSON(raw []byte) (*Response, error) {
	var c struct {
		Choices []struct {
			Message struct {
				Content          json.RawMessage `json:"content"` // a string, or Mistral's parts
				ReasoningContent string          `json:"reasoning_content"`
				Reasoning        string          `json:"reasoning"`
				Refusal          string          `json:"refusal"`
				ToolCalls        []struct {
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
					ExtraContent json.RawMessage `json:"extra_content"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage openaiUsage `json:"usage"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || len(c.Choices) == 0 {
		return nil, fmt.Errorf("openai: answer is neither an event stream nor a chat completion: %.200q", raw)
	}
	ch := c.Choices[0]
	out := &Response{Usage: c.Usage.usage()}
	content, thought, err := contentParts(ch.Message.Content)
	if err != nil {
		return nil, fmt.Errorf("openai: bad chat completion %.200q: %w", raw, err)
	}
	r, field := reasoningOf(ch.Message.ReasoningContent, ch.Message.Reasoning)
	if r == "" && thought != "" {
		r, field = thought, "thinking"
	}
	if r != "" {
		out.Content = append(out.Content, Block{Type: "thinking", Thinking: r, Field: field})
	}
	text := content + ch.Message.Refusal
	if text != "" {
		out.Content = append(out.Content, Block{Type: "text", Text: text})
	}
	for i, tc := range ch.Message.ToolCalls {
		b := Block{Type: "tool_use", ID: tc.ID, Name: tc.Function.Name}
		if len(tc.ExtraContent) > 0 && string(tc.ExtraContent) != "null" {
			b.Extra = tc.ExtraContent
		}
		if b.ID == "" {
			b.ID = fmt.Sprintf("call_%d", i)
		}
		b.Input, b.InvalidInput = toolInput(tc.Function.Arguments)
		out.Content = append(out.Content, b)
	}
	out.StopReason = stopReason(ch.FinishReason, len(ch.Message.ToolCalls) > 0)
	if ch.Message.Refusal != "" {
		out.StopReason = "refusal"
	}
	return out, nil
}

// TextOf is the text blocks of blocks joined.
func TextOf(blocks []Block) string {
	var b strings.Builder
	for _, x := range blocks {
		if x.Type == "text" {
			b.WriteString(x.Text)
		}
	}
	return b.String()
}
