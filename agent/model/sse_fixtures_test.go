package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The testdata/*.sse streams are written after the providers' documented
// formats: Anthropic's streaming event sequence (message_start,
// content_block_start/delta/stop, ping, message_delta, message_stop, error)
// and OpenAI's chat.completion.chunk objects ending in data: [DONE].

var update = flag.Bool("update", false, "rewrite the golden request bodies in testdata")

func TestDecodesDocumentedStreams(t *testing.T) {
	cases := []struct {
		fixture string
		decode  decoder
		want    Response
		text    string
	}{
		{"anthropic_text.sse", decodeAnthropic, Response{
			Content: []Block{{Type: "text", Text: "Hello!"}}, StopReason: "end_turn", Usage: Usage{InputTokens: 25, OutputTokens: 15},
		}, "Hello!"},
		{"anthropic_tool_use.sse", decodeAnthropic, Response{
			Content: []Block{
				{Type: "text", Text: "Okay, let's check the weather for San Francisco, CA:"},
				{Type: "tool_use", ID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", Name: "get_weather", Input: json.RawMessage(`{"location": "San Francisco, CA", "unit": "fahrenheit"}`)},
			},
			StopReason: "tool_use", Usage: Usage{InputTokens: 472, OutputTokens: 89},
		}, "Okay, let's check the weather for San Francisco, CA:"},
		{"anthropic_thinking.sse", decodeAnthropic, Response{
			Content: []Block{
				{Type: "thinking", Thinking: "Let me solve this step by step:\n\n1. First break down 27 * 453\n2. 453 = 400 + 50 + 3", Signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds..."},
				{Type: "redacted_thinking", Data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB9URj2pLmN3kF8/dW5hR7xJ0aP1oLs9yTcMnKVf2wRpEGjH9XZaBt4UvDcPrQ..."},
				{Type: "text", Text: "27 * 453 = 12,231"},
			},
			StopReason: "end_turn", Usage: Usage{InputTokens: 40, OutputTokens: 120},
		}, "27 * 453 = 12,231"},
		{"openai_text.sse", decodeOpenAI, Response{
			Content: []Block{{Type: "text", Text: "Hello!"}}, StopReason: "end_turn", Usage: Usage{InputTokens: 9, OutputTokens: 12},
		}, "Hello!"},
		{"openai_tool_calls.sse", decodeOpenAI, Response{
			Content: []Block{
				{Type: "tool_use", ID: "call_DdmO9pD3xa9XTPNJ32zg2hcA", Name: "get_weather", Input: json.RawMessage(`{"location": "Paris, France"}`)},
				{Type: "tool_use", ID: "call_ABCxyz123", Name: "get_weather", Input: json.RawMessage(`{"location": "Bogotá, Colombia"}`)},
			},
			StopReason: "tool_use", Usage: Usage{InputTokens: 82, OutputTokens: 45},
		}, ""},
	}
	for _, c := range cases {
		raw := readFixture(t, c.fixture)
		variants := map[string][]byte{
			"LF":   raw,
			"CRLF": bytes.ReplaceAll(raw, []byte("\n"), []byte("\r\n")),
			"CR":   bytes.ReplaceAll(raw, []byte("\n"), []byte("\r")),
		}
		for name, body := range variants {
			t.Run(c.fixture+"/"+name, func(t *testing.T) {
				var text strings.Builder
				got, err := c.decode(bytes.NewReader(body), sink{text: func(s string) { text.WriteString(s) }})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(*got, c.want) {
					t.Errorf("got  %+v\nwant %+v", *got, c.want)
				}
				if text.String() != c.text {
					t.Errorf("streamed %q, want %q", text.String(), c.text)
				}
			})
		}
	}
}

func TestDecodesDocumentedErrorEvents(t *testing.T) {
	cases := []struct {
		fixture   string
		decode    decoder
		typ       string
		retryable bool
	}{
		{"anthropic_error.sse", decodeAnthropic, "overloaded_error", true},
		{"openai_error.sse", decodeOpenAI, "server_error", true},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			_, err := c.decode(bytes.NewReader(readFixture(t, c.fixture)), sink{})
			var api *APIError
			var se *streamError
			if !errors.As(err, &api) || !errors.As(err, &se) {
				t.Fatalf("err = %v, want an APIError from the stream", err)
			}
			if api.Type != c.typ || se.retry != c.retryable {
				t.Errorf("type %q retry %v, want %q %v", api.Type, se.retry, c.typ, c.retryable)
			}
		})
	}
}

func TestStreamCutShortIsAnError(t *testing.T) {
	for _, c := range []struct {
		fixture string
		decode  decoder
		cutAt   string
	}{
		{"anthropic_text.sse", decodeAnthropic, "event: message_delta"},
		{"openai_text.sse", decodeOpenAI, `"finish_reason":"stop"`},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			raw := readFixture(t, c.fixture)
			cut := raw[:bytes.Index(raw, []byte(c.cutAt))]
			_, err := c.decode(bytes.NewReader(cut), sink{})
			var se *streamError
			if !errors.As(err, &se) || !se.retry || !strings.Contains(err.Error(), "stream ended") {
				t.Fatalf("err = %v, want a retryable 'stream ended' error", err)
			}
		})
	}
}

// conversation has every block kind: a thinking turn with tool use, two
// tool results (one failed), and a follow-up question.
func conversation() Request {
	return Request{
		System: "You are agentls.",
		Tools: []ToolDef{
			{Name: "fs__read_file", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "run_command", Description: "Run a command.", Schema: json.RawMessage(`{"type":"object","properties":{"cmd":{"type":"string"}}}`)},
		},
		Messages: []Message{
			{Role: "user", Content: []Block{{Type: "text", Text: "What does main.go do?"}}},
			{Role: "assistant", Content: []Block{
				{Type: "thinking", Thinking: "I should read it.", Signature: "sig-abc"},
				{Type: "redacted_thinking", Data: "opaque-data"},
				{Type: "text", Text: "Let me look."},
				{Type: "tool_use", ID: "toolu_1", Name: "fs__read_file", Input: json.RawMessage(`{"path":"main.go"}`)},
				{Type: "tool_use", ID: "toolu_2", Name: "run_command", Input: json.RawMessage(`{"cmd":"go vet"}`)},
			}},
			{Role: "user", Content: []Block{
				{Type: "tool_result", ToolUseID: "toolu_1", Content: "package main\n"},
				{Type: "tool_result", ToolUseID: "toolu_2", Content: "denied by policy", IsError: true},
			}},
			{Role: "user", Content: []Block{{Type: "text", Text: "And now?"}}},
		},
	}
}

func TestRequestBodiesMatchGolden(t *testing.T) {
	cases := []struct {
		golden string
		body   func(Request) ([]byte, error)
	}{
		{"anthropic_request.golden.json", newAnthropic(DefaultAnthropicURL, "claude-sonnet-4-5", "k", "ANTHROPIC_API_KEY", 8192, nil).body},
		{"openai_request.golden.json", newOpenAI("http://127.0.0.1:11434/v1", "qwen2.5-coder", "", "", 8192, nil).body},
		{"openai_official_request.golden.json", newOpenAI(DefaultOpenAIURL, "gpt-4.1", "k", "OPENAI_API_KEY", 8192, nil).body},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			raw, err := c.body(conversation())
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := json.Indent(&got, raw, "", "  "); err != nil {
				t.Fatal(err)
			}
			got.WriteByte('\n')
			path := filepath.Join("testdata", c.golden)
			if *update {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("request body differs from %s:\n%s", path, got.String())
			}
		})
	}
}

// TestDecodesReasoningAndStopShapes reads the project's own streams in the
// shapes reasoning models and short stops come in: DeepSeek's
// reasoning_content before a tool call, Gemini 3's tool call with its
// thought signature (no index, no id, finish_reason stop), OpenAI's refusal
// deltas, a reasoning model stopped by length before any answer, Claude's
// refusal after text, and a tool input Claude's max_tokens cut (no
// content_block_stop).
func TestDecodesReasoningAndStopShapes(t *testing.T) {
	cases := []struct {
		fixture         string
		decode          decoder
		want            Response
		text, reasoning string
	}{
		{"openai_deepseek_reasoning_tool.sse", decodeOpenAI, Response{
			Content: []Block{
				{Type: "thinking", Thinking: "The user wants main.go read.", Field: "reasoning_content"},
				{Type: "tool_use", ID: "call_00_ds", Name: "read_file", Input: json.RawMessage(`{"path": "main.go"}`)},
			},
			StopReason: "tool_use", Usage: Usage{InputTokens: 210, OutputTokens: 31, CacheReadTokens: 192},
		}, "", "The user wants main.go read."},
		{"openai_gemini_tool.sse", decodeOpenAI, Response{
			Content: []Block{{Type: "tool_use", ID: "call_0", Name: "read_file", Input: json.RawMessage(`{"path":"main.go"}`),
				Extra: json.RawMessage(`{"google":{"thought_signature":"CiQBcHJvamVjdC1vd24tc2lnbmF0dXJl"}}`)}},
			StopReason: "tool_use", Usage: Usage{InputTokens: 120, OutputTokens: 14},
		}, "", ""},
		{"openai_refusal.sse", decodeOpenAI, Response{
			Content: []Block{{Type: "text", Text: "I can't help with that."}}, StopReason: "refusal", Usage: Usage{InputTokens: 30, OutputTokens: 6},
		}, "I can't help with that.", ""},
		{"openai_reasoning_length.sse", decodeOpenAI, Response{
			Content:    []Block{{Type: "thinking", Thinking: "First, consider every case", Field: "reasoning_content"}},
			StopReason: "max_tokens", Usage: Usage{InputTokens: 50, OutputTokens: 64},
		}, "", "First, consider every case"},
		{"anthropic_refusal.sse", decodeAnthropic, Response{
			Content: []Block{{Type: "text", Text: "Sure, "}}, StopReason: "refusal", Usage: Usage{InputTokens: 20, OutputTokens: 3},
		}, "Sure, ", ""},
		{"anthropic_max_tokens_in_tool.sse", decodeAnthropic, Response{
			Content:    []Block{{Type: "tool_use", ID: "toolu_own_cut", Name: "read_file", Input: json.RawMessage(`{}`), InvalidInput: `{"path": "ma`}},
			StopReason: "max_tokens", Usage: Usage{InputTokens: 300, OutputTokens: 16},
		}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			var text, reasoning strings.Builder
			got, err := c.decode(bytes.NewReader(readFixture(t, c.fixture)), sink{
				text: func(s string) { text.WriteString(s) }, reasoning: func(s string) { reasoning.WriteString(s) }})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, c.want) {
				t.Errorf("got  %+v\nwant %+v", *got, c.want)
			}
			if text.String() != c.text || reasoning.String() != c.reasoning {
				t.Errorf("streamed text %q and reasoning %q, want %q and %q", text.String(), reasoning.String(), c.text, c.reasoning)
			}
		})
	}
}
