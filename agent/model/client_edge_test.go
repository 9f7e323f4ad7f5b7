package model

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
)

func TestAJSONAnswerToAStreamRequestIsStillRead(t *testing.T) {
	cases := []struct {
		format, fixture string
		want            Response
	}{
		{"anthropic", "anthropic_message.json", Response{
			Content: []Block{
				{Type: "text", Text: "I'll check."},
				{Type: "tool_use", ID: "toolu_01A09q90qw90lq917835lq9", Name: "get_weather", Input: json.RawMessage(`{"location": "San Francisco, CA"}`)},
			},
			StopReason: "tool_use", Usage: Usage{InputTokens: 2095, OutputTokens: 503},
		}},
		{"openai", "openai_completion.json", Response{
			Content: []Block{
				{Type: "text", Text: "Checking."},
				{Type: "tool_use", ID: "call_abc123", Name: "get_weather", Input: json.RawMessage(`{"location":"Boston, MA"}`)},
			},
			StopReason: "tool_use", Usage: Usage{InputTokens: 82, OutputTokens: 17},
		}},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			fixture := readFixture(t, c.fixture)
			base := newRawServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write(fixture)
			})
			f := formats()[0]
			if c.format == "openai" {
				f = formats()[1]
				base += "/v1"
			}
			p, _ := f.open(base)
			resp, text, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
			if err != nil {
				t.Fatal(err)
			}
			if text != c.want.Content[0].Text {
				t.Errorf("onText got %q", text)
			}
			got, _ := json.Marshal(resp)
			want, _ := json.Marshal(c.want)
			if string(got) != string(want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestBadToolNamesNeverReachTheProvider(t *testing.T) {
	cases := []struct {
		name  string
		tools []ToolDef
		want  string
	}{
		{"a dot", []ToolDef{{Name: "fs.read"}}, `tool name "fs.read" is not allowed`},
		{"too long", []ToolDef{{Name: strings.Repeat("a", 65)}}, "is not allowed"},
		{"leading digit", []ToolDef{{Name: "1tool"}}, "is not allowed"},
		{"empty", []ToolDef{{Name: ""}}, "is not allowed"},
		{"duplicate", []ToolDef{{Name: "a"}, {Name: "a"}}, "offered twice"},
	}
	for _, f := range formats() {
		for _, c := range cases {
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				s := modeltest.New(t)
				s.Script(modeltest.Turn{Text: "unused"})
				_, _, err := stream(t, f.openOn(s), Request{Messages: []Message{userText("hi")}, Tools: c.tools})
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("err = %v, want %q", err, c.want)
				}
				if len(s.Requests()) != 0 {
					t.Error("the request was sent anyway")
				}
			})
		}
	}
}

func TestUnauthorizedWithoutAKeySaysToSetIt(t *testing.T) {
	s := modeltest.New(t)
	s.Script(modeltest.Turn{Status: 401})
	p, err := New(config.Model{Provider: "openai", Name: "m", BaseURL: s.URL() + "/v1", APIKeyEnv: "AGENTLS_TEST_KEY"}, env())
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = stream(t, p, Request{Messages: []Message{userText("hi")}})
	if err == nil || !strings.Contains(err.Error(), "authentication failed (401): set AGENTLS_TEST_KEY") {
		t.Fatalf("err = %v", err)
	}
}

func TestAnthropicDropsWhatTheAPIWouldRefuse(t *testing.T) {
	p := newAnthropic(DefaultAnthropicURL, "m", "k", "K", 10, nil)
	raw, err := p.body(Request{Messages: []Message{
		{Role: "assistant", Content: []Block{{Type: "thinking", Thinking: "unsigned"}, {Type: "text", Text: ""}, {Type: "tool_use", ID: "t", Name: "x"}}},
		{Role: "user", Content: []Block{{Type: "text", Text: "after"}, {Type: "tool_result", ToolUseID: "t", IsError: true}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","max_tokens":10,"messages":[` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":true},{"type":"text","text":"after","cache_control":{"type":"ephemeral"}}]}],"stream":true}`
	if string(raw) != want {
		t.Errorf("got  %s\nwant %s", raw, want)
	}
}

func TestCheckListsModelsWithoutSpendingTokens(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			s := modeltest.New(t)
			r, err := Resolve(config.Model{Provider: f.name, Name: "fake-model", BaseURL: f.baseOf(s), APIKeyEnv: "K"}, env("K", "v"))
			if err != nil {
				t.Fatal(err)
			}
			listed, err := Check(context.Background(), r, "v", nil)
			if err != nil || !listed {
				t.Fatalf("listed %v err %v", listed, err)
			}
			reqs := s.Requests()
			if len(reqs) != 1 || reqs[0].Method != http.MethodGet || !strings.HasSuffix(reqs[0].Path, "/v1/models") || s.Pending() != 0 {
				t.Errorf("requests %+v", reqs)
			}
		})
	}
}

func TestCheckOnNothingConfiguredSaysWhatToSet(t *testing.T) {
	r, _ := Resolve(config.Model{}, env())
	r.BaseURL = closedURL(t) + "/v1"
	_, err := Check(context.Background(), r, "", nil)
	var nm *NoModelError
	if !errors.As(err, &nm) || !strings.Contains(err.Error(), "no model configured: set ANTHROPIC_API_KEY") {
		t.Fatalf("err = %v", err)
	}
}

func TestToolInputSentWholeInBlockStartIsKept(t *testing.T) {
	stream := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"x\",\"input\":{\"a\":1}}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	resp, err := decodeAnthropic(strings.NewReader(stream), sink{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Content) != 1 || string(resp.Content[0].Input) != `{"a":1}` {
		t.Errorf("content %+v", resp.Content)
	}
}

func TestAWebPageInsteadOfAStreamPointsAtBaseURL(t *testing.T) {
	base := newRawServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<html>login</html>"))
	})
	p, waits := formats()[1].open(base + "/v1")
	_, _, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
	if err == nil || !strings.Contains(err.Error(), "web page") || !strings.Contains(err.Error(), "check [model] base_url") || len(*waits) != 0 {
		t.Fatalf("err = %v, waits %v", err, *waits)
	}
}
