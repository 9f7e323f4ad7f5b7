package modeltest_test

import (
	"reflect"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"

	"github.com/agentls/agentls/agent/model/providers"
)

// Bodies written after each provider's documented request format, using
// the array forms too (Anthropic system and content as blocks, OpenAI
// content as parts), which agentls itself does not send but others may.
const anthropicBody = `{
 "model": "claude-sonnet-4-5", "max_tokens": 1024,
 "system": [{"type": "text", "text": "You are terse."}],
 "tools": [{"name": "get_weather", "description": "d", "input_schema": {"type": "object"}},
           {"name": "fs__read_file", "input_schema": {"type": "object"}}],
 "messages": [
  {"role": "user", "content": "What's the weather?"},
  {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}]},
  {"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "15 degrees"}]},
    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "boom", "is_error": true}]}
 ]}`

const openaiBody = `{
 "model": "gpt-4.1",
 "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}],
 "messages": [
  {"role": "developer", "content": [{"type": "text", "text": "You are terse."}]},
  {"role": "user", "content": [{"type": "text", "text": "What's the weather?"}]},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
  {"role": "tool", "tool_call_id": "call_1", "content": "15 degrees"},
  {"role": "tool", "tool_call_id": "call_2", "content": "Error: boom"},
  {"role": "tool", "tool_call_id": "call_3", "content": "ERROR: denied by the user"},
  {"role": "tool", "tool_call_id": "call_4", "content": "errors: none"}
 ]}`

func TestRequestHelpersReadBothFormats(t *testing.T) {
	cases := []struct {
		name      string
		req       modeltest.Request
		tools     []string
		results   []modeltest.ToolResult
		system    string
		lastUser  string
		modelName string
	}{
		{"anthropic", modeltest.Request{Format: providers.Messages, Body: []byte(anthropicBody)},
			[]string{"get_weather", "fs__read_file"},
			[]modeltest.ToolResult{{ToolUseID: "toolu_1", Content: "15 degrees"}, {ToolUseID: "toolu_2", Content: "boom", IsError: true}},
			"You are terse.", "What's the weather?", "claude-sonnet-4-5"},
		{"openai", modeltest.Request{Format: providers.ChatCompletions, Body: []byte(openaiBody)},
			[]string{"get_weather"},
			[]modeltest.ToolResult{{ToolUseID: "call_1", Content: "15 degrees"}, {ToolUseID: "call_2", Content: "Error: boom", IsError: true},
				// agentls sends a result that already says ERROR: (any case) unprefixed.
				{ToolUseID: "call_3", Content: "ERROR: denied by the user", IsError: true}, {ToolUseID: "call_4", Content: "errors: none"}},
			"You are terse.", "What's the weather?", "gpt-4.1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.req.ToolNames(); !reflect.DeepEqual(got, c.tools) {
				t.Errorf("ToolNames %v", got)
			}
			if got := c.req.ToolResults(); !reflect.DeepEqual(got, c.results) {
				t.Errorf("ToolResults %+v", got)
			}
			if got := c.req.System(); got != c.system {
				t.Errorf("System %q", got)
			}
			if got := c.req.LastUserText(); got != c.lastUser {
				t.Errorf("LastUserText %q", got)
			}
			if got := c.req.Model(); got != c.modelName {
				t.Errorf("Model %q", got)
			}
		})
	}
}

// AssistantTexts reads what the model said before, in both formats, and
// leaves out a turn of only tool calls.
func TestAssistantTextsReadsTheHistory(t *testing.T) {
	const anthropic = `{"messages": [
  {"role": "user", "content": "hi"},
  {"role": "assistant", "content": [{"type": "text", "text": "Hello."}, {"type": "tool_use", "id": "t", "name": "x", "input": {}}]},
  {"role": "assistant", "content": [{"type": "tool_use", "id": "u", "name": "x", "input": {}}]},
  {"role": "assistant", "content": "Bye."}]}`
	const openai = `{"messages": [
  {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "x", "arguments": "{}"}}]},
  {"role": "assistant", "content": [{"type": "text", "text": "Parts."}]},
  {"role": "assistant", "content": "Plain."}]}`
	for _, c := range []struct {
		req  modeltest.Request
		want []string
	}{
		{modeltest.Request{Format: providers.Messages, Body: []byte(anthropic)}, []string{"Hello.", "Bye."}},
		{modeltest.Request{Format: providers.ChatCompletions, Body: []byte(openai)}, []string{"Parts.", "Plain."}},
		{modeltest.Request{Format: providers.ChatCompletions, Body: []byte(`{"messages": []}`)}, []string{}},
	} {
		if got := c.req.AssistantTexts(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: AssistantTexts %q, want %q", c.req.Format, got, c.want)
		}
	}
}
