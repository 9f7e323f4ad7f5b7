package modeltest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/agentls/agentls/agent/model/providers"
)

// The conversation's shape, as each API checks it before anything else:
// a request whose history one provider would refuse is refused here with
// that provider's message, so a history carried from one wire to the
// other (a session switched between models) is held to the rules of the
// wire it goes to.
//
// Messages: roles user and assistant; each block of a type the role may
// send, with only that type's fields; tool_use ids matching
// ^[a-zA-Z0-9_-]+$ and unique in the request; every tool_use answered by a
// tool_result in the next message, and every tool_result answering a
// tool_use of the message before.
//
// Chat completions: roles system, developer, user, assistant and tool;
// content a string, null, or parts of the types the API takes; tool call
// ids of at most 40 characters; every tool message answering a call of
// the assistant message before it (tool messages in between), and every
// call answered before the next message of another role.

// anthropicIDPattern is the Messages API's rule for tool_use ids.
var anthropicIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// anthropicFields are the fields each block type takes on the Messages
// API (by the role that may send it).
var anthropicFields = map[string]map[string][]string{
	"user": {
		"text":        {"type", "text", "cache_control", "citations"},
		"image":       {"type", "source", "cache_control"},
		"document":    {"type", "source", "title", "context", "citations", "cache_control"},
		"tool_result": {"type", "tool_use_id", "content", "is_error", "cache_control"},
	},
	"assistant": {
		"text":              {"type", "text", "cache_control", "citations"},
		"tool_use":          {"type", "id", "name", "input", "cache_control"},
		"thinking":          {"type", "thinking", "signature"},
		"redacted_thinking": {"type", "data"},
	},
}

// openaiMaxIDLen is the longest tool call id OpenAI takes.
const openaiMaxIDLen = 40

func historyRefusal(m string) *refusal {
	return &refusal{status: 400, typ: "invalid_request_error", m: m}
}

// checkHistory says which rule of its wire the request's history breaks.
func checkHistory(format providers.Wire, body []byte) *refusal {
	var req struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil // parseBody answers a body that is not JSON
	}
	if format == providers.Messages {
		return checkAnthropicHistory(req.Messages)
	}
	return checkOpenAIHistory(req.Messages)
}

func checkAnthropicHistory(msgs []map[string]json.RawMessage) *refusal {
	seen := map[string]bool{}
	var prevUses []string // the tool_use ids of the message before
	for i, m := range msgs {
		var role string
		json.Unmarshal(m["role"], &role)
		fields, ok := anthropicFields[role]
		if !ok {
			return historyRefusal(fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i))
		}
		var blocks []map[string]json.RawMessage
		var text string
		if json.Unmarshal(m["content"], &text) != nil {
			if err := json.Unmarshal(m["content"], &blocks); err != nil {
				return historyRefusal(fmt.Sprintf("messages.%d.content: Input should be a valid string or a valid list", i))
			}
		}
		var uses, answered []string
		for j, b := range blocks {
			var typ string
			json.Unmarshal(b["type"], &typ)
			allowed, ok := fields[typ]
			if !ok {
				return historyRefusal(fmt.Sprintf("messages.%d.content.%d.type: a %s message cannot hold a block of type %q", i, j, role, typ))
			}
			for k := range b {
				if !slices.Contains(allowed, k) {
					return historyRefusal(fmt.Sprintf("messages.%d.content.%d.%s.%s: Extra inputs are not permitted", i, j, typ, k))
				}
			}
			switch typ {
			case "tool_use":
				var id string
				json.Unmarshal(b["id"], &id)
				if !anthropicIDPattern.MatchString(id) {
					return historyRefusal(fmt.Sprintf("messages.%d.content.%d.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'", i, j))
				}
				if seen[id] {
					return historyRefusal(fmt.Sprintf("messages.%d.content.%d: `tool_use` ids must be unique", i, j))
				}
				seen[id] = true
				uses = append(uses, id)
			case "tool_result":
				var id string
				json.Unmarshal(b["tool_use_id"], &id)
				if !slices.Contains(prevUses, id) {
					return historyRefusal(fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, id))
				}
				answered = append(answered, id)
			case "thinking":
				if _, ok := b["signature"]; !ok {
					return historyRefusal(fmt.Sprintf("messages.%d.content.%d.thinking.signature: Field required", i, j))
				}
			}
		}
		if len(prevUses) > 0 {
			var missing []string
			for _, id := range prevUses {
				if !slices.Contains(answered, id) {
					missing = append(missing, id)
				}
			}
			if len(missing) > 0 {
				return historyRefusal(fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i-1, strings.Join(missing, ", ")))
			}
		}
		prevUses = uses
	}
	return nil
}

// openaiParts are the content part types chat completions takes.
var openaiParts = []string{"text", "image_url", "input_audio", "refusal", "audio", "file"}

func checkOpenAIHistory(msgs []map[string]json.RawMessage) *refusal {
	pending := map[string]bool{} // calls of the last assistant message not answered yet
	inCalls := false             // the messages since that assistant message are all tool messages
	unanswered := func() *refusal {
		if len(pending) == 0 {
			return nil
		}
		var ids []string
		for id := range pending {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		return &refusal{status: 400, typ: "invalid_request_error", param: "messages",
			m: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(ids, ", ")}
	}
	for i, m := range msgs {
		var role string
		json.Unmarshal(m["role"], &role)
		switch role {
		case "system", "developer", "user", "assistant", "tool":
		default:
			return &refusal{status: 400, typ: "invalid_request_error", param: fmt.Sprintf("messages[%d].role", i),
				m: fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", role)}
		}
		if raw, ok := m["content"]; ok && string(raw) != "null" {
			var s string
			var parts []map[string]json.RawMessage
			if json.Unmarshal(raw, &s) != nil {
				if json.Unmarshal(raw, &parts) != nil {
					return &refusal{status: 400, typ: "invalid_request_error", param: fmt.Sprintf("messages[%d].content", i),
						m: fmt.Sprintf("Invalid type for 'messages[%d].content': expected one of a string or array of objects, but got an object instead.", i)}
				}
				for j, p := range parts {
					var typ string
					json.Unmarshal(p["type"], &typ)
					if !slices.Contains(openaiParts, typ) {
						return &refusal{status: 400, typ: "invalid_request_error", code: "invalid_value", param: fmt.Sprintf("messages[%d].content[%d].type", i, j),
							m: fmt.Sprintf("Invalid value: '%s'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'.", typ)}
					}
				}
			}
		}
		if role == "tool" {
			var id string
			json.Unmarshal(m["tool_call_id"], &id)
			if !inCalls || !pending[id] {
				return &refusal{status: 400, typ: "invalid_request_error", param: fmt.Sprintf("messages.[%d].role", i),
					m: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."}
			}
			delete(pending, id)
			continue
		}
		if r := unanswered(); r != nil {
			return r
		}
		inCalls = false
		if role != "assistant" {
			continue
		}
		var calls []struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		}
		json.Unmarshal(m["tool_calls"], &calls)
		for j, c := range calls {
			if len(c.ID) > openaiMaxIDLen {
				return &refusal{status: 400, typ: "invalid_request_error", code: "string_above_max_length", param: fmt.Sprintf("messages[%d].tool_calls[%d].id", i, j),
					m: fmt.Sprintf("Invalid 'messages[%d].tool_calls[%d].id': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", i, j, openaiMaxIDLen, len(c.ID))}
			}
			if c.Type != "function" {
				return &refusal{status: 400, typ: "invalid_request_error", param: fmt.Sprintf("messages[%d].tool_calls[%d].type", i, j),
					m: fmt.Sprintf("Invalid value: '%s'. Supported values are: 'function'.", c.Type)}
			}
			pending[c.ID] = true
		}
		inCalls = len(calls) > 0
	}
	return unanswered()
}
