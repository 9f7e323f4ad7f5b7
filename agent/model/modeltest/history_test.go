package modeltest_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// The fake refuses a history its wire's API refuses, with that API's
// words, before any scripted turn is used: a conversation carried from
// one wire to the other must be valid for the one it goes to.
func TestAHistoryIsHeldToTheRulesOfItsWire(t *testing.T) {
	const an, oa = "/v1/messages", "/v1/chat/completions"
	anth := func(msgs string) string { return `{"model":"m","max_tokens":5,"messages":[` + msgs + `]}` }
	open := func(msgs string) string { return `{"model":"m","messages":[` + msgs + `]}` }
	const ask = `{"role":"user","content":"go"}`
	use := func(id string) string {
		return `{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"t","input":{}}]}`
	}
	result := func(id string) string {
		return `{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"x"}]}`
	}
	call := func(id string) string {
		return `{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"t","arguments":"{}"}}]}`
	}
	tool := func(id string) string { return `{"role":"tool","tool_call_id":"` + id + `","content":"x"}` }
	tests := []struct {
		name, path, body, refusal string // refusal "": accepted
	}{
		{"messages: a tool turn", an, anth(ask + "," + use("toolu_1") + "," + result("toolu_1")), ""},
		{"messages: a tool_use left unanswered", an, anth(ask + "," + use("toolu_1") + "," + ask), "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1"},
		{"messages: a result of no call", an, anth(ask + "," + result("toolu_9")), "unexpected `tool_use_id` found in `tool_result` blocks: toolu_9"},
		{"messages: an id with a dot", an, anth(ask + "," + use("call.1") + "," + result("call.1")), "String should match pattern"},
		{"messages: an id used twice", an, anth(ask + "," + use("c1") + "," + result("c1") + "," + use("c1") + "," + result("c1")), "`tool_use` ids must be unique"},
		{"messages: a chat completions field", an, anth(ask + `,{"role":"assistant","content":[{"type":"text","text":"hi","reasoning_content":"r"}]},` + ask), "Extra inputs are not permitted"},
		{"messages: a thinking block without its signature", an, anth(ask + `,{"role":"assistant","content":[{"type":"thinking","thinking":"r"},{"type":"text","text":"hi"}]},` + ask), "thinking.signature: Field required"},
		{"messages: a tool role", an, anth(ask + "," + tool("c1")), "Input should be 'user' or 'assistant'"},
		{"chat: a tool turn", oa, open(ask + "," + call("call_1") + "," + tool("call_1")), ""},
		{"chat: a call left unanswered", oa, open(ask + "," + call("call_1") + "," + ask), "did not have response messages: call_1"},
		{"chat: a tool message of no call", oa, open(ask + "," + tool("call_1")), "messages with role 'tool' must be a response"},
		{"chat: an id too long", oa, open(ask + "," + call(strings.Repeat("x", 41)) + "," + tool(strings.Repeat("x", 41))), "Expected a string with maximum length 40"},
		{"chat: a Messages block as content", oa, open(ask + `,{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"t","input":{}}]}`), "Invalid value: 'tool_use'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Text: "ok"})
			resp := post(t, context.Background(), s.URL()+tc.path, tc.body)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if tc.refusal == "" {
				if resp.StatusCode != 200 {
					t.Fatalf("got %d %s; want 200", resp.StatusCode, b)
				}
				return
			}
			if resp.StatusCode != 400 || !strings.Contains(string(b), tc.refusal) || s.Pending() != 1 {
				t.Errorf("got %d %s (%d turns left); want 400 saying %q, the script untouched", resp.StatusCode, b, s.Pending(), tc.refusal)
			}
		})
	}
}
