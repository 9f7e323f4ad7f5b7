package model

import (
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

func TestThinkingIsKeptAndEchoedBackVerbatim(t *testing.T) {
	s := modeltest.New(t)
	s.Script(
		modeltest.Turn{Thinking: "The user wants the file read.", ToolCalls: []modeltest.ToolCall{{ID: "toolu_9", Name: "read", Input: `{"path":"x"}`}}},
		modeltest.Turn{Text: "done"},
	)
	p := formats()[0].openOn(s)
	history := []Message{userText("read x")}
	first, _, err := stream(t, p, Request{Messages: history})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Content) != 2 || first.Content[0].Type != "thinking" || first.Content[0].Thinking != "The user wants the file read." || first.Content[0].Signature == "" {
		t.Fatalf("first answer %+v: the thinking block with its signature must be kept", first.Content)
	}
	history = append(history,
		Message{Role: "assistant", Content: first.Content},
		Message{Role: "user", Content: []Block{{Type: "tool_result", ToolUseID: "toolu_9", Content: "contents"}}},
	)
	if _, _, err := stream(t, p, Request{Messages: history}); err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string `json:"type"`
				Thinking  string `json:"thinking"`
				Signature string `json:"signature"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(s.Requests()[1].Body, &sent); err != nil {
		t.Fatal(err)
	}
	echoed := sent.Messages[1].Content[0]
	if echoed.Type != "thinking" || echoed.Thinking != first.Content[0].Thinking || echoed.Signature != first.Content[0].Signature {
		t.Errorf("second request sent %+v, want the thinking block verbatim", echoed)
	}
	got := s.Requests()[1].ToolResults()
	if len(got) != 1 || got[0] != (modeltest.ToolResult{ToolUseID: "toolu_9", Content: "contents"}) {
		t.Errorf("tool results sent %+v", got)
	}
}

func TestToolResultsReachTheModelInBothFormats(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Text: "ok"})
			req := conversation()
			if _, _, err := stream(t, f.openOn(s), req); err != nil {
				t.Fatal(err)
			}
			r := s.Requests()[0]
			want := []modeltest.ToolResult{
				{ToolUseID: "toolu_1", Content: "package main\n"},
				{ToolUseID: "toolu_2", Content: "denied by policy", IsError: true},
			}
			if f.name == "openai" {
				want[1].Content = "Error: denied by policy" // no error flag on the wire: the prefix says it
			}
			got := r.ToolResults()
			if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
				t.Errorf("tool results %+v, want %+v", got, want)
			}
			if r.LastUserText() != "And now?" || r.System() != "You are agentls." {
				t.Errorf("last user text %q, system %q", r.LastUserText(), r.System())
			}
		})
	}
}
