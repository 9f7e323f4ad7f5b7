package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
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
		{"reasoning deltas are not text: they are a thinking block, kept with their field",
			chunk(`{"reasoning_content":"hmm"}`, "") + chunk(`{"content":"ok"}`, "stop") + "data: [DONE]\n\n",
			[]Block{{Type: "thinking", Thinking: "hmm", Field: "reasoning_content"}, {Type: "text", Text: "ok"}}, "end_turn"},
		{"reasoning (OpenRouter, Groq, Ollama) is kept with its own field",
			chunk(`{"role":"assistant","content":"","reasoning":"hm"}`, "") + chunk(`{"content":"","reasoning":"m"}`, "") + chunk(`{"content":"ok"}`, "stop") + "data: [DONE]\n\n",
			[]Block{{Type: "thinking", Thinking: "hmm", Field: "reasoning"}, {Type: "text", Text: "ok"}}, "end_turn"},
		{"a delta carrying both fields (newer vLLM) is read once",
			chunk(`{"reasoning_content":"hmm","reasoning":"hmm"}`, "") + chunk(`{"content":"ok"}`, "stop") + "data: [DONE]\n\n",
			[]Block{{Type: "thinking", Thinking: "hmm", Field: "reasoning_content"}, {Type: "text", Text: "ok"}}, "end_turn"},
		{"a refusal is the answer's text and stops as refusal",
			chunk(`{"role":"assistant","content":null,"refusal":""}`, "") + chunk(`{"refusal":"I can't "}`, "") + chunk(`{"refusal":"help."}`, "") + chunk(`{}`, "stop") + "data: [DONE]\n\n",
			[]Block{{Type: "text", Text: "I can't help."}}, "refusal"},
		{"Gemini's extra_content on a call is kept as it came",
			chunk(`{"role":"assistant","tool_calls":[{"extra_content":{"google":{"thought_signature":"c2ln"}},"function":{"arguments":"{}","name":"x"},"type":"function"}]}`, "") + chunk(`{"role":"assistant"}`, "stop") + "data: [DONE]\n\n",
			[]Block{{Type: "tool_use", ID: "call_0", Name: "x", Input: []byte(`{}`), Extra: []byte(`{"google":{"thought_signature":"c2ln"}}`)}}, "tool_use"},
		{"a stream ending without [DONE] after a finish_reason is complete",
			chunk(`{"content":"ok"}`, "length"),
			[]Block{{Type: "text", Text: "ok"}}, "max_tokens"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var text strings.Builder
			got, err := decodeOpenAI(strings.NewReader(c.stream), sink{text: func(s string) { text.WriteString(s) }})
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
				if g.Type != w.Type || g.ID != w.ID || g.Name != w.Name || string(g.Input) != string(w.Input) || g.Text != w.Text ||
					g.Thinking != w.Thinking || g.Field != w.Field || string(g.Extra) != string(w.Extra) {
					t.Errorf("block %d = %+v (input %s), want %+v (input %s)", i, g, g.Input, w, w.Input)
				}
			}
			if strings.Contains(text.String(), "hmm") {
				t.Error("reasoning reached onText")
			}
		})
	}
}

func TestOpenAIErrorToolResultsSayErrorOnce(t *testing.T) {
	// OpenAI tool messages have no error flag, so agentls marks a failed
	// result in its text; a result that already says so is sent as written,
	// never as "Error: ERROR: ...".
	cases := []struct {
		name, content string
		isError       bool
		want          string
	}{
		{"an error without a marker gets the prefix", "denied by policy", true, "Error: denied by policy"},
		{"agentls's own ERROR: is not doubled", "ERROR: denied by the user", true, "ERROR: denied by the user"},
		{"a lower-case marker is not doubled", "error: boom", true, "error: boom"},
		{"the prefix itself is not doubled", "Error: boom", true, "Error: boom"},
		{"a word starting with error is not a marker", "Errors: 3 found", true, "Error: Errors: 3 found"},
		{"an empty error gets the prefix", "", true, "Error: "},
		{"a success is sent as written", "ERROR: is just text here", false, "ERROR: is just text here"},
	}
	s := modeltest.New(t)
	s.Script(modeltest.Turn{Text: "ok"})
	var uses, results []Block
	for i, c := range cases {
		id := fmt.Sprintf("call_%d", i)
		uses = append(uses, Block{Type: "tool_use", ID: id, Name: "run_command", Input: json.RawMessage(`{}`)})
		results = append(results, Block{Type: "tool_result", ToolUseID: id, Content: c.content, IsError: c.isError})
	}
	req := Request{Messages: []Message{userText("go"), {Role: "assistant", Content: uses}, {Role: "user", Content: results}}}
	openai := formats()[1]
	if openai.name != "openai" {
		t.Fatalf("formats()[1] is %s, want openai", openai.name)
	}
	if _, _, err := stream(t, openai.openOn(s), req); err != nil {
		t.Fatal(err)
	}
	got := s.Requests()[0].ToolResults()
	if len(got) != len(cases) {
		t.Fatalf("%d tool results sent, want %d: %+v", len(got), len(cases), got)
	}
	for i, c := range cases {
		if got[i].Content != c.want {
			t.Errorf("%s: sent %q, want %q", c.name, got[i].Content, c.want)
		}
	}
}

// OpenAI's reasoning models behind Azure and other fronts refuse
// max_tokens: the request is sent again once with max_completion_tokens,
// and that is remembered for the endpoint and model, so a later client
// (another agentls process) sends the right one at once.
func TestUnsupportedMaxTokensIsAskedAgainWithTheOtherFieldAndRemembered(t *testing.T) {
	s := modeltest.New(t)
	refuseMaxTokens := func(r modeltest.Request) (modeltest.Turn, bool) {
		if strings.Contains(string(r.Body), `"max_tokens":`) {
			return modeltest.Turn{Status: 400, ErrorType: "unsupported_parameter",
				ErrorMessage: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}, true
		}
		return modeltest.Turn{}, false
	}
	s.Answer(refuseMaxTokens)
	s.Script(modeltest.Turn{Text: "first"}, modeltest.Turn{Text: "second"})
	state := t.TempDir()
	cfg := config.Model{Provider: "openai", Name: "o3-mini", BaseURL: s.URL() + "/v1"}
	for i, want := range []string{"first", "second"} {
		p, err := NewIn(cfg, env(), state)
		if err != nil {
			t.Fatal(err)
		}
		_, text, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
		if err != nil || text != want {
			t.Fatalf("client %d: text %q err %v", i+1, text, err)
		}
	}
	var fields []string
	for _, r := range s.ModelRequests("openai") {
		switch {
		case strings.Contains(string(r.Body), `"max_tokens":`):
			fields = append(fields, "max_tokens")
		case strings.Contains(string(r.Body), `"max_completion_tokens":`):
			fields = append(fields, "max_completion_tokens")
		}
	}
	if want := []string{"max_tokens", "max_completion_tokens", "max_completion_tokens"}; strings.Join(fields, " ") != strings.Join(want, " ") {
		t.Errorf("fields sent %v; want %v (refused once, then the other, remembered by the second client)", fields, want)
	}
}

// [model] max_tokens_field fixes the field: nothing is switched, and the
// endpoint's refusal is the error.
func TestConfiguredMaxTokensFieldIsNeverSwitched(t *testing.T) {
	s := modeltest.New(t)
	s.Script(modeltest.Turn{Status: 400, ErrorType: "unsupported_parameter",
		ErrorMessage: "Unsupported parameter: 'max_completion_tokens' is not supported with this model. Use 'max_tokens' instead."})
	p, err := NewIn(config.Model{Provider: "openai", Name: "m", BaseURL: s.URL() + "/v1", MaxTokensField: "max_completion_tokens"}, env(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = stream(t, p, Request{Messages: []Message{userText("hi")}})
	if err == nil || !strings.Contains(err.Error(), "Unsupported parameter: 'max_completion_tokens'") || len(s.ModelRequests("")) != 1 {
		t.Fatalf("err %v, %d requests; want the refusal after one request", err, len(s.ModelRequests("")))
	}
}
