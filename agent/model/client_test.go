package model

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/model/providers"
)

// format is one wire format under test, opened against a fake server.
type format struct {
	name string
	open func(base string) (Provider, *[]time.Duration)
}

// wire is the wire format the provider named f.name speaks.
func (f format) wire() providers.Wire {
	p, _ := providers.Lookup(f.name)
	return p.Wire
}

// baseOf is the base_url a format's users configure for a fake server.
func (f format) baseOf(s *modeltest.Server) string {
	if f.name == "openai" {
		return s.URL() + "/v1"
	}
	return s.URL()
}

func formats() []format {
	return []format{
		{"anthropic", func(base string) (Provider, *[]time.Duration) {
			p := newAnthropic(base, "fake-model", "test-key", "AGENTLS_TEST_KEY", 1000, &http.Client{})
			return p, recordSleeps(&p.ep)
		}},
		{"openai", func(base string) (Provider, *[]time.Duration) {
			p := newOpenAI(base, "fake-model", "test-key", "AGENTLS_TEST_KEY", 1000, &http.Client{})
			return p, recordSleeps(&p.ep)
		}},
	}
}

// recordSleeps makes retries record their waits instead of sleeping, so
// tests check the backoff without taking its time.
func recordSleeps(ep *endpoint) *[]time.Duration {
	var waits []time.Duration
	ep.retry.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return &waits
}

// openOn opens a format against a fake server.
func (f format) openOn(s *modeltest.Server) Provider {
	p, _ := f.open(f.baseOf(s))
	return p
}

func stream(t *testing.T, p Provider, req Request) (*Response, string, error) {
	t.Helper()
	var text strings.Builder
	resp, err := p.Stream(context.Background(), req, func(s string) { text.WriteString(s) })
	return resp, text.String(), err
}

func userText(s string) Message {
	return Message{Role: "user", Content: []Block{{Type: "text", Text: s}}}
}

func TestStreamsTextInBothFormats(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Text: "Hello there, how are you?", InputTokens: 12, OutputTokens: 7})
			resp, streamed, err := stream(t, f.openOn(s), Request{System: "be brief", Messages: []Message{userText("hi")}})
			if err != nil {
				t.Fatal(err)
			}
			if streamed != "Hello there, how are you?" {
				t.Errorf("onText got %q", streamed)
			}
			if len(resp.Content) != 1 || resp.Content[0].Type != "text" || resp.Content[0].Text != "Hello there, how are you?" {
				t.Errorf("content = %+v", resp.Content)
			}
			if resp.StopReason != "end_turn" {
				t.Errorf("stop reason %q, want end_turn", resp.StopReason)
			}
			if resp.Usage != (Usage{InputTokens: 12, OutputTokens: 7}) {
				t.Errorf("usage %+v", resp.Usage)
			}
			reqs := s.Requests()
			if len(reqs) != 1 || reqs[0].Format != f.wire() {
				t.Fatalf("requests %+v", reqs)
			}
			if got := reqs[0].System(); got != "be brief" {
				t.Errorf("system %q", got)
			}
			if got := reqs[0].LastUserText(); got != "hi" {
				t.Errorf("last user text %q", got)
			}
		})
	}
}

func TestStreamsToolCallsAccumulatedFromDeltas(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Text: "Reading both.", ToolCalls: []modeltest.ToolCall{
				{ID: "c1", Name: "fs__read_file", Input: `{"path":"a.go","limit":10}`},
				{ID: "c2", Name: "grep", Input: `{"pattern":"func main","paths":["x","é"]}`},
				{ID: "c3", Name: "no_args"},
			}})
			tools := []ToolDef{{Name: "fs__read_file", Description: "read", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}, {Name: "grep"}, {Name: "no_args"}}
			resp, _, err := stream(t, f.openOn(s), Request{Messages: []Message{userText("go")}, Tools: tools})
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != "tool_use" {
				t.Errorf("stop reason %q", resp.StopReason)
			}
			var calls []Block
			for _, b := range resp.Content {
				if b.Type == "tool_use" {
					calls = append(calls, b)
				}
			}
			want := []struct{ id, name, input string }{
				{"c1", "fs__read_file", `{"path":"a.go","limit":10}`},
				{"c2", "grep", `{"pattern":"func main","paths":["x","é"]}`},
				{"c3", "no_args", `{}`},
			}
			if len(calls) != len(want) {
				t.Fatalf("calls %+v", calls)
			}
			for i, w := range want {
				if calls[i].ID != w.id || calls[i].Name != w.name || string(calls[i].Input) != w.input || calls[i].InvalidInput != "" {
					t.Errorf("call %d = %+v, want %+v", i, calls[i], w)
				}
			}
			if got := s.Requests()[0].ToolNames(); strings.Join(got, ",") != "fs__read_file,grep,no_args" {
				t.Errorf("tools offered %v", got)
			}
		})
	}
}
