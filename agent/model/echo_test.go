package model

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/model/providers"
)

// toolTurn is one tool call turn of a reasoning model and its follow-up.
func toolTurn(s *modeltest.Server) {
	s.Script(
		modeltest.Turn{Thinking: "The user wants a.txt; I will read it.", ToolCalls: []modeltest.ToolCall{{Name: "read_file", Input: `{"path":"a.txt"}`}}},
		modeltest.Turn{Text: "It says hello."},
	)
}

// continueWith is history after first's answer and the tool's result.
func continueWith(history []Message, first *Response) []Message {
	var results []Block
	for _, b := range first.Content {
		if b.Type == "tool_use" {
			results = append(results, Block{Type: "tool_result", ToolUseID: b.ID, Content: "hello"})
		}
	}
	return append(history, Message{Role: "assistant", Content: first.Content}, Message{Role: "user", Content: results})
}

// sentAssistant is the assistant message of a recorded chat completions request.
func sentAssistant(t *testing.T, r modeltest.Request) map[string]any {
	t.Helper()
	for _, m := range r.JSON()["messages"].([]any) {
		if m := m.(map[string]any); m["role"] == "assistant" {
			return m
		}
	}
	t.Fatalf("no assistant message in %s", r.Body)
	return nil
}

func TestReasoningStateGoesBackToTheEndpointThatSentIt(t *testing.T) {
	for _, v := range []struct {
		vendor modeltest.Vendor
		check  func(t *testing.T, asst map[string]any)
	}{
		{modeltest.DeepSeek, func(t *testing.T, asst map[string]any) {
			if asst["reasoning_content"] != "The user wants a.txt; I will read it." {
				t.Errorf("reasoning_content sent back %v, want the reasoning as it came", asst["reasoning_content"])
			}
		}},
		{modeltest.Gemini, func(t *testing.T, asst map[string]any) {
			call := asst["tool_calls"].([]any)[0].(map[string]any)
			extra, _ := json.Marshal(call["extra_content"])
			if !strings.Contains(string(extra), `"thought_signature":"`) {
				t.Errorf("tool call sent back with extra_content %s, want its thought_signature", extra)
			}
		}},
		{modeltest.OpenRouter, func(t *testing.T, asst map[string]any) {
			if asst["reasoning"] != "The user wants a.txt; I will read it." || asst["reasoning_content"] != nil {
				t.Errorf("reasoning %v, reasoning_content %v: want the reasoning back in the field it came in", asst["reasoning"], asst["reasoning_content"])
			}
			// The pieces of reasoning_details are joined by index, the
			// encrypted one (the signature of the model behind) kept.
			details, _ := json.Marshal(asst["reasoning_details"])
			var parts []map[string]any
			json.Unmarshal(details, &parts)
			if len(parts) != 2 || parts[0]["type"] != "reasoning.text" || parts[0]["text"] != "The user wants a.txt; I will read it." || parts[1]["type"] != "reasoning.encrypted" {
				t.Errorf("reasoning_details sent back %s, want the text joined and the encrypted part", details)
			}
		}},
	} {
		t.Run(string(v.vendor), func(t *testing.T) {
			s := modeltest.New(t)
			s.SetVendor(v.vendor)
			toolTurn(s)
			p := formats()[1].openOn(s)
			var reasoning strings.Builder
			history := []Message{userText("what does a.txt say?")}
			first, text, err := stream(t, p, Request{Messages: history, OnReasoning: func(d string) { reasoning.WriteString(d) }})
			if err != nil {
				t.Fatal(err)
			}
			if reasoning.String() != "The user wants a.txt; I will read it." || text != "" {
				t.Errorf("streamed reasoning %q, text %q: the reasoning goes to OnReasoning only", reasoning.String(), text)
			}
			// The second request fails on the vendor's own rule unless what
			// it attached comes back.
			if _, _, err := stream(t, p, Request{Messages: continueWith(history, first)}); err != nil {
				t.Fatalf("the tool turn's follow-up failed: %v", err)
			}
			v.check(t, sentAssistant(t, s.ModelRequests("openai")[1]))
		})
	}
}

func TestReasoningStateNeverGoesToAnotherEndpoint(t *testing.T) {
	deepseek, gemini, other := modeltest.New(t), modeltest.New(t), modeltest.New(t)
	deepseek.SetVendor(modeltest.DeepSeek)
	gemini.SetVendor(modeltest.Gemini)
	toolTurn(deepseek)
	toolTurn(gemini)
	other.Script(modeltest.Turn{Text: "ok"}, modeltest.Turn{Text: "ok"})
	for _, s := range []*modeltest.Server{deepseek, gemini} {
		history := []Message{userText("read a.txt")}
		first, _, err := stream(t, formats()[1].openOn(s), Request{Messages: history})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := stream(t, formats()[1].openOn(other), Request{Messages: continueWith(history, first)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range other.ModelRequests("openai") {
		if b := string(r.Body); strings.Contains(b, "reasoning") || strings.Contains(b, "extra_content") {
			t.Errorf("another endpoint was sent what one endpoint attached: %s", b)
		}
	}
}

func TestAnEndpointRefusingItsOwnReasoningIsAskedAgainWithout(t *testing.T) {
	// Groq streams delta.reasoning and refuses it sent back ("property
	// 'reasoning' is unsupported"): the request goes again without it, and
	// the field is not sent there again.
	s := modeltest.New(t)
	s.SetVendor(modeltest.Groq)
	toolTurn(s)
	s.Script(modeltest.Turn{Text: "again"})
	p := formats()[1].openOn(s)
	history := []Message{userText("read a.txt")}
	first, _, err := stream(t, p, Request{Messages: history})
	if err != nil {
		t.Fatal(err)
	}
	if first.Content[0].Field != "reasoning" {
		t.Fatalf("first answer %+v: want Groq's reasoning kept", first.Content)
	}
	history = continueWith(history, first)
	if _, _, err := stream(t, p, Request{Messages: history}); err != nil {
		t.Fatalf("follow-up: %v", err)
	}
	if _, _, err := stream(t, p, Request{Messages: history}); err != nil {
		t.Fatalf("next request: %v", err)
	}
	reqs := s.ModelRequests("openai")
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4: the first, the refused one, its retry, the next", len(reqs))
	}
	if sentAssistant(t, reqs[1])["reasoning"] == nil {
		t.Error("the first follow-up should have tried sending the reasoning back")
	}
	for _, r := range reqs[2:] {
		if a := sentAssistant(t, r); a["reasoning"] != nil {
			t.Errorf("reasoning sent again after the endpoint refused it: %s", r.Body)
		}
	}
}

func TestAGoogleErrorArrayIsRead(t *testing.T) {
	s := modeltest.New(t)
	s.SetVendor(modeltest.Gemini)
	p := newOpenAI(s.URL()+"/v1", "gemini-3-flash-preview", "k", "GEMINI_API_KEY", 1000, &http.Client{})
	history := []Message{userText("x"), {Role: "assistant", Content: []Block{{Type: "tool_use", ID: "c", Name: "read_file", Input: json.RawMessage(`{}`)}}},
		{Role: "user", Content: []Block{{Type: "tool_result", ToolUseID: "c", Content: "y"}}}}
	_, err := p.Stream(context.Background(), Request{Messages: history}, nil)
	var api *APIError
	if !errors.As(err, &api) || api.Status != 400 || !strings.HasPrefix(api.Message, "Function call is missing a thought_signature in functionCall parts.") {
		t.Fatalf("err = %v: want the 400 with Google's message, not its raw JSON", err)
	}
}

func TestReasoningIsNeverSentToAProviderKnownToRefuseIt(t *testing.T) {
	s := modeltest.New(t)
	s.SetVendor(modeltest.Groq)
	toolTurn(s)
	p := newOpenAI(s.URL()+"/v1", "qwen/qwen3-32b", "k", "GROQ_API_KEY", 1000, &http.Client{})
	p.desc = providers.Groq
	history := []Message{userText("read a.txt")}
	first, _, err := stream(t, p, Request{Messages: history})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := stream(t, p, Request{Messages: continueWith(history, first)}); err != nil {
		t.Fatal(err)
	}
	if n := len(s.ModelRequests("openai")); n != 2 {
		t.Errorf("%d requests, want 2: Groq's descriptor says it refuses its reasoning back, so none is refused", n)
	}
}

// TestASessionBegunElsewhereStillWorksOnDeepSeekAndGemini: tool calls that
// came from another endpoint (or a turn DeepSeek did not think in) carry
// nothing of these endpoints; their descriptors fill what they demand
// (an empty reasoning_content; Google's skip signature) rather than every
// later request of the session failing.
func TestASessionBegunElsewhereStillWorksOnDeepSeekAndGemini(t *testing.T) {
	for _, c := range []struct {
		vendor modeltest.Vendor
		desc   *providers.Provider
	}{{modeltest.DeepSeek, providers.DeepSeek}, {modeltest.Gemini, providers.Gemini}} {
		t.Run(string(c.vendor), func(t *testing.T) {
			s := modeltest.New(t)
			s.SetVendor(c.vendor)
			s.Script(modeltest.Turn{Text: "ok"})
			p := newOpenAI(s.URL()+"/v1", "m", "k", "K", 1000, &http.Client{})
			p.desc = c.desc
			history := []Message{userText("read a.txt"),
				{Role: "assistant", Content: []Block{{Type: "tool_use", ID: "toolu_1", Name: "read_file", Input: json.RawMessage(`{"path":"a.txt"}`)}}},
				{Role: "user", Content: []Block{{Type: "tool_result", ToolUseID: "toolu_1", Content: "hello"}}}}
			if _, _, err := stream(t, p, Request{Messages: history}); err != nil {
				t.Fatalf("a session begun on another endpoint fails here: %v", err)
			}
		})
	}
}

func TestOpenRouterErrorsSayWhatTheProviderBehindSaid(t *testing.T) {
	typ, msg := parseError([]byte(`{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"code\":400,\"message\":\"Function call is missing a thought_signature\"}}","provider_name":"Google AI Studio"}}}`))
	if msg != "Provider returned error (Google AI Studio: Function call is missing a thought_signature)" || typ != "" {
		t.Errorf("parseError = %q, %q", typ, msg)
	}
}

func TestTheStoredEndpointCarriesNoCredential(t *testing.T) {
	e := endpoint{url: "https://user:secret@gw.example/v1/chat/completions?key=AIzaSECRET"}
	if got := e.identity(); got != "https://gw.example/v1/chat/completions" {
		t.Errorf("identity = %q, want the URL without user info or query", got)
	}
}
