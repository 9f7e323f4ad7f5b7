package modeltest

import (
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/agent/model/providers"
)

// Anthropic's extended thinking ("thinking": {"type": "enabled",
// "budget_tokens": N}): the server then always thinks before answering
// (a Turn without Thinking gets a short one), and refuses what the API
// refuses alongside it, with the API's messages: a budget under 1024, a
// max_tokens not above the budget, a temperature other than 1, a
// tool-result continuation whose assistant message does not start with its
// thinking block, and a thinking block whose signature is not one it gave.

// defaultThinking is what a thinking-enabled answer thinks when its Turn
// says nothing.
const defaultThinking = "The user asked something; let me answer."

type thinkingRequest struct {
	MaxTokens   int      `json:"max_tokens"`
	Temperature *float64 `json:"temperature"`
	Thinking    *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type thinkingBlock struct {
	Type      string `json:"type"`
	Signature string `json:"signature"`
}

func thinkingEnabled(format providers.Wire, body []byte) bool {
	if format != providers.Messages {
		return false
	}
	var r thinkingRequest
	return json.Unmarshal(body, &r) == nil && r.Thinking != nil && r.Thinking.Type == "enabled"
}

func thinkingRefusal(m string) *refusal {
	return &refusal{status: 400, typ: "invalid_request_error", m: m}
}

// checkThinking says which of extended thinking's rules the request breaks.
func checkThinking(format providers.Wire, body []byte) *refusal {
	if !thinkingEnabled(format, body) {
		return nil
	}
	var r thinkingRequest
	json.Unmarshal(body, &r)
	budget := r.Thinking.BudgetTokens
	switch {
	case budget < 1024:
		return thinkingRefusal("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
	case r.MaxTokens <= budget:
		return thinkingRefusal("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size")
	case r.Temperature != nil && *r.Temperature != 1:
		return thinkingRefusal("`temperature` may only be set to 1 when thinking is enabled or in adaptive mode.")
	}
	for i, m := range r.Messages {
		var blocks []thinkingBlock
		json.Unmarshal(m.Content, &blocks)
		for j, b := range blocks {
			if b.Type == "thinking" && b.Signature != anthropicSignature {
				return thinkingRefusal(fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j))
			}
		}
	}
	// A continuation after tool results: the assistant message that made
	// the calls must start with its thinking.
	n := len(r.Messages)
	if n < 2 || r.Messages[n-1].Role != "user" || r.Messages[n-2].Role != "assistant" {
		return nil
	}
	var last []struct {
		Type string `json:"type"`
	}
	json.Unmarshal(r.Messages[n-1].Content, &last)
	results := false
	for _, b := range last {
		results = results || b.Type == "tool_result"
	}
	var asst []thinkingBlock
	json.Unmarshal(r.Messages[n-2].Content, &asst)
	if !results || len(asst) == 0 || asst[0].Type == "thinking" || asst[0].Type == "redacted_thinking" {
		return nil
	}
	return thinkingRefusal(fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking", n-2, asst[0].Type))
}
