package model

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// A history whose tool call ids came from another provider — numbered
// afresh each answer (call_0 twice), with characters the Messages API
// refuses, longer than OpenAI's 40 — is sent with ids each wire takes,
// each result still answering its call; the fake refuses any other.
func TestToolCallIDsFromAnotherProviderAreSentAsTheWireTakesThem(t *testing.T) {
	long := "call_" + strings.Repeat("9", 50)
	turn := func(id string) []Message {
		return []Message{
			{Role: "assistant", Content: []Block{{Type: "tool_use", ID: id, Name: "read_file", Input: json.RawMessage(`{}`)}}},
			{Role: "user", Content: []Block{{Type: "tool_result", ToolUseID: id, Content: "content of " + id}}},
		}
	}
	history := []Message{userText("go")}
	for _, id := range []string{"call_0", "call_0", "fc.1:x", long} {
		history = append(history, turn(id)...)
	}
	history = append(history, userText("and now?"))
	for _, wire := range []string{"anthropic", "openai"} {
		t.Run(wire, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Text: "ok"})
			var p Provider
			if wire == "anthropic" {
				p = newAnthropic(s.URL(), "claude-sonnet-4-5", "k", "K", 4000, &http.Client{})
			} else {
				p = newOpenAI(s.URL()+"/v1", "gpt-4.1", "k", "K", 4000, &http.Client{})
			}
			if _, _, err := stream(t, p, Request{Messages: history}); err != nil {
				t.Fatalf("the fake refused the history: %v", err)
			}
			got := s.ModelRequests(wire)[0].ToolResults()
			if len(got) != 4 {
				t.Fatalf("results %+v; want 4", got)
			}
			seen := map[string]bool{}
			for i, r := range got {
				if !strings.HasSuffix(r.Content, "content of "+[]string{"call_0", "call_0", "fc.1:x", long}[i]) {
					t.Errorf("result %d = %+v: not its call's content", i, r)
				}
				if wire == "anthropic" && seen[r.ToolUseID] {
					t.Errorf("id %s sent twice to the Messages API", r.ToolUseID)
				}
				seen[r.ToolUseID] = true
			}
		})
	}
}
