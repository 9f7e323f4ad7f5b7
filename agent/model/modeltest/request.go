package modeltest

import (
	"encoding/json"
	"strings"

	"github.com/agentls/agentls/agent/model/providers"
)

// ToolResult is one tool result found in a request's messages.
type ToolResult struct {
	ToolUseID string
	Content   string
	// IsError is Anthropic's is_error. OpenAI has no such flag: there it is
	// true when the content starts with "error:" in any case (agentls's
	// OpenAI provider prefixes "Error: " to a failed result that does not
	// already start so, e.g. its own "ERROR: ...").
	IsError bool
}

// saysError is the OpenAI error marker test (the model package's SaysError;
// modeltest cannot import model, whose tests import modeltest).
func saysError(c string) bool {
	const marker = "error:"
	return len(c) >= len(marker) && strings.EqualFold(c[:len(marker)], marker)
}

// body is the union of both formats' request fields the helpers read.
type body struct {
	Model    string          `json:"model"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Name     string `json:"name"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (r Request) decode() body {
	var b body
	json.Unmarshal(r.Body, &b) // a malformed body reads as empty: the helpers then find nothing
	return b
}

// text reads a content value that is either a string or an array of blocks
// (Anthropic text blocks or OpenAI text parts), joining the text pieces.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []block
	json.Unmarshal(raw, &bs)
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func blocks(raw json.RawMessage) []block {
	var bs []block
	json.Unmarshal(raw, &bs)
	return bs
}

// Model is the model name the request asked for.
func (r Request) Model() string { return r.decode().Model }

// JSON decodes the body into a generic value, for assertions the helpers do not cover.
func (r Request) JSON() map[string]any {
	var m map[string]any
	json.Unmarshal(r.Body, &m)
	return m
}

// ToolNames returns the names of the tools offered, in order.
func (r Request) ToolNames() []string {
	var out []string
	for _, t := range r.decode().Tools {
		if r.Format == providers.ChatCompletions {
			out = append(out, t.Function.Name)
		} else {
			out = append(out, t.Name)
		}
	}
	return out
}

// ToolResults returns the tool results carried in the messages, in order.
func (r Request) ToolResults() []ToolResult {
	var out []ToolResult
	for _, m := range r.decode().Messages {
		if r.Format == providers.ChatCompletions {
			if m.Role == "tool" {
				c := text(m.Content)
				out = append(out, ToolResult{ToolUseID: m.ToolCallID, Content: c, IsError: saysError(c)})
			}
			continue
		}
		for _, b := range blocks(m.Content) {
			if b.Type == "tool_result" {
				out = append(out, ToolResult{ToolUseID: b.ToolUseID, Content: text(b.Content), IsError: b.IsError})
			}
		}
	}
	return out
}

// System returns the system prompt (Anthropic "system"; OpenAI the leading
// system or developer messages).
func (r Request) System() string {
	b := r.decode()
	if r.Format != providers.ChatCompletions {
		return text(b.System)
	}
	var parts []string
	for _, m := range b.Messages {
		if m.Role != "system" && m.Role != "developer" {
			break
		}
		parts = append(parts, text(m.Content))
	}
	return strings.Join(parts, "\n")
}

// LastUserText returns the text of the last user message that has any text
// (tool-result-only messages are skipped).
func (r Request) LastUserText() string {
	msgs := r.decode().Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		if t := text(msgs[i].Content); t != "" {
			return t
		}
	}
	return ""
}

// AssistantTexts returns the text of every assistant message in the
// request's history, oldest first, leaving out those with none (a turn of
// only tool calls): what the model is shown it said before.
func (r Request) AssistantTexts() []string {
	out := []string{}
	for _, m := range r.decode().Messages {
		if m.Role != "assistant" {
			continue
		}
		if t := text(m.Content); t != "" {
			out = append(out, t)
		}
	}
	return out
}
