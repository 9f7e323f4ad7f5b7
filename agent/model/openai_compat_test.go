package model

import (
	"strings"
	"testing"
)

// Compatible servers (Ollama, vLLM, llama.cpp) stream tool calls in their
// own ways; each rule below is one of them.
func TestOpenAICompatibleToolCallVariants(t *testing.T) {
	chunk := func(delta string, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `data: {"choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}` + "\n\n"
	}
	cases := []struct {
		name   string
		stream string
		want   []Block
		stop   string
	}{
		{"whole calls without index each make a call",
			chunk(`{"tool_calls":[{"id":"a","function":{"name":"x","arguments":"{\"n\":1}"}}]}`, "") +
				chunk(`{"tool_calls":[{"id":"b","function":{"name":"y","arguments":"{}"}}]}`, "tool_calls") + "data: [DONE]\n\n",
			[]Block{{Type: "tool_use", ID: "a", Name: "x", Input: []byte(`{"n":1}`)}, {Type: "tool_use", ID: "b", Name: "y", Input: []byte(`{}`)}}, "tool_use"},
		{"the id repeated on every chunk is one call",
			chunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"x","arguments":"{\"n\""}}]}`, "") +
				chunk(`{"tool_calls":[{"index":0,"id":"a","function":{"arguments":":2}"}}]}`, "tool_calls") + "data: [DONE]\n\n",
			[]Block{{Type: "tool_use", ID: "a", Name: "x", Input: []byte(`{"n":2}`)}}, "tool_use"},
		{"a new id at a reused index is a new call",
			chunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"x","arguments":"{}"}}]}`, "") +
				chunk(`{"tool_calls":[{"index":0,"id":"b","function":{"name":"y","arguments":"{}"}}]}`, "tool_calls") + "data: [DONE]\n\n",
			[]Block{{Type: "tool_use", ID: "a", Name: "x", Input: []byte(`{}`)}, {Type: "tool_use", ID: "b", Name: "y", Input: []byte(`{}`)}}, "tool_use"},
		{"finish_reason stop with tool calls is still tool use",
			chunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"x","arguments":""}}]}`, "stop") + "data: [DONE]\n\n",
			[]Block{{Type: "tool_use", ID: "a", Name: "x", Input: []byte(`{}`)}}, "tool_use"},
		{"a missing id gets one so results pair up",
			chunk(`{"tool_calls":[{"index":0,"function":{"name":"x","arguments":"{}"}}]}`, "tool_calls") + "data: [DONE]\n\n",
			[]Block{{Type: "tool_use", ID: "call_0", Name: "x", Input: []byte(`{}`)}}, "tool_use"},
		{"reasoning deltas are not text",
			chunk(`{"reasoning_content":"hmm"}`, "") + chunk(`{"content":"ok"}`, "stop") + "data: [DONE]\n\n",
			[]Block{{Type: "text", Text: "ok"}}, "end_turn"},
		{"a stream ending without [DONE] after a finish_reason is complete",
			chunk(`{"content":"ok"}`, "length"),
			[]Block{{Type: "text", Text: "ok"}}, "max_tokens"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var text strings.Builder
			got, err := decodeOpenAI(strings.NewReader(c.stream), func(s string) { text.WriteString(s) })
			if err != nil {
				t.Fatal(err)
			}
			if got.StopReason != c.stop {
				t.Errorf("stop %q, want %q", got.StopReason, c.stop)
			}
			if len(got.Content) != len(c.want) {
				t.Fatalf("content %+v", got.Content)
			}
			for i, w := range c.want {
				g := got.Content[i]
				if g.Type != w.Type || g.ID != w.ID || g.Name != w.Name || string(g.Input) != string(w.Input) || g.Text != w.Text {
					t.Errorf("block %d = %+v (input %s), want %+v (input %s)", i, g, g.Input, w, w.Input)
				}
			}
			if strings.Contains(text.String(), "hmm") {
				t.Error("reasoning reached onText")
			}
		})
	}
}
