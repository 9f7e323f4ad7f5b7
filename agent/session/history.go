package session

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/agent/model"
)

// ValidHistory checks that messages may be sent to a provider: it starts
// with a user message, roles alternate, it ends with a user message, and
// every tool_use of an assistant message has exactly one tool_result in the
// next user message, in the same order, before any other block of it; no
// tool_result appears anywhere else. A history that breaks this pairing is
// rejected by providers and would poison every later turn of the session.
func ValidHistory(msgs []model.Message) error {
	if len(msgs) == 0 {
		return fmt.Errorf("history is empty")
	}
	var pending []string // tool_use ids the next user message must answer
	for i, m := range msgs {
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if m.Role != want {
			return fmt.Errorf("message %d: role %q, want %q (roles must alternate, starting with user)", i, m.Role, want)
		}
		if len(m.Content) == 0 {
			return fmt.Errorf("message %d (%s): no content", i, m.Role)
		}
		if m.Role == "user" {
			for j, b := range m.Content {
				if j < len(pending) {
					if b.Type != "tool_result" || b.ToolUseID != pending[j] {
						return fmt.Errorf("message %d block %d: want the tool_result for %q, got %s %q", i, j, pending[j], b.Type, b.ToolUseID)
					}
					continue
				}
				if b.Type == "tool_result" {
					return fmt.Errorf("message %d block %d: tool_result %q answers no tool_use", i, j, b.ToolUseID)
				}
			}
			if len(m.Content) < len(pending) {
				return fmt.Errorf("message %d: %d tool_use(s) of message %d have no tool_result", i, len(pending)-len(m.Content), i-1)
			}
			pending = nil
			continue
		}
		seen := map[string]bool{}
		for j, b := range m.Content {
			switch b.Type {
			case "tool_result":
				return fmt.Errorf("message %d block %d: tool_result in an assistant message", i, j)
			case "tool_use":
				if b.ID == "" || b.Name == "" {
					return fmt.Errorf("message %d block %d: tool_use without id or name", i, j)
				}
				if seen[b.ID] {
					return fmt.Errorf("message %d block %d: duplicate tool_use id %q", i, j, b.ID)
				}
				if !isJSONObject(b.Input) {
					return fmt.Errorf("message %d block %d: tool_use %q input is not a JSON object", i, j, b.ID)
				}
				seen[b.ID] = true
				pending = append(pending, b.ID)
			}
		}
	}
	if msgs[len(msgs)-1].Role != "user" {
		return fmt.Errorf("history ends with an assistant message: the next request needs a user message")
	}
	return nil
}

// isJSONObject reports whether raw is one valid JSON object, the verdict of
// unmarshalling it into a map, without building the map: every turn checks
// every earlier tool input, so this runs once per tool call per turn.
func isJSONObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{' && json.Valid(raw)
}

// Sendable is stored as sent: interrupted turns settled (interrupted.go),
// then consecutive user messages joined (a prompt after a turn cut off by
// max_iterations follows the stored tool results) so roles alternate,
// keeping tool_result blocks first.
func Sendable(stored []model.Message) []model.Message {
	out := make([]model.Message, 0, len(stored))
	for _, m := range settleInterrupted(stored) {
		if n := len(out); n > 0 && m.Role == "user" && out[n-1].Role == "user" {
			merged := append(append([]model.Block(nil), out[n-1].Content...), m.Content...)
			out[n-1] = model.Message{Role: "user", Content: merged}
			continue
		}
		out = append(out, m)
	}
	return out
}

// ValidStored checks a stored history at rest: empty, or Sendable as is, or
// a complete turn (an assistant message with no tool_use after a Sendable history).
func ValidStored(stored []model.Message) error {
	if len(stored) == 0 {
		return nil
	}
	msgs := Sendable(stored)
	if len(msgs) == 0 {
		return nil // only a turn that is never sent again (a prompt too long for the window)
	}
	last := msgs[len(msgs)-1]
	if last.Role == "assistant" {
		for _, b := range last.Content {
			if b.Type == "tool_use" {
				return fmt.Errorf("the last assistant message has tool_use %q with no tool_result", b.ID)
			}
		}
		if len(msgs) == 1 {
			return fmt.Errorf("history starts with an assistant message")
		}
		return ValidHistory(msgs[:len(msgs)-1])
	}
	return ValidHistory(msgs)
}

// keptMessages is which stored messages (their indexes, in order) make a
// history valid at rest while losing as little as possible: the history is
// cut into turns (each starts at a user prompt, a user message that is not
// tool results), and of each turn the longest prefix that continues what is
// kept so far is kept. A turn broken in the middle (a lost tool_result, a
// message gone to a torn line) keeps its prompt and what precedes the break;
// the turns after it are all kept.
func keptMessages(stored []model.Message) []int {
	all := make([]int, len(stored))
	for i := range all {
		all[i] = i
	}
	if ValidStored(stored) == nil {
		return all
	}
	var kept []int
	var hist []model.Message
	for start := 0; start < len(stored); {
		end := start + 1
		for end < len(stored) && !StartsTurn(stored[end]) {
			end++
		}
		for n := end; n > start; n-- {
			cand := append(hist[:len(hist):len(hist)], stored[start:n]...)
			if ValidStored(cand) == nil {
				hist = cand
				kept = append(kept, all[start:n]...)
				break
			}
		}
		start = end
	}
	return kept
}
