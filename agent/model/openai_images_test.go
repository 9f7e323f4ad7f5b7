package model

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

func TestToolResultImagesReachOpenAIInAUserMessageAfterTheToolMessages(t *testing.T) {
	s := modeltest.New(t)
	s.Script(modeltest.Turn{Text: "a grey box"}, modeltest.Turn{Text: "a grey box"})
	pic := testPNG(t, 8, 4)
	p := formats()[1].openOn(s)
	for range 2 {
		if _, _, err := stream(t, p, imageConversation(pic)); err != nil {
			t.Fatal(err)
		}
	}
	reqs := s.ModelRequests("openai")
	imgs := reqs[0].Images()
	if len(imgs) != 1 || imgs[0].Where != "user" || imgs[0].ToolUseID != "toolu_2" || imgs[0].MIMEType != "image/png" || !bytes.Equal(imgs[0].Data, pic) {
		t.Fatalf("images sent %+v; want the PNG's bytes in the user message right after the tool messages", imgs)
	}
	var sent struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[0].Body, &sent); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range sent.Messages {
		roles = append(roles, m.Role+":"+m.ToolCallID)
	}
	want := []string{"user:", "assistant:", "tool:toolu_1", "tool:toolu_2", "user:"}
	if len(roles) != len(want) {
		t.Fatalf("messages %v; want %v", roles, want)
	}
	for i := range want {
		if roles[i] != want[i] {
			t.Fatalf("messages %v; want %v", roles, want)
		}
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(sent.Messages[4].Content, &parts); err != nil || len(parts) != 3 ||
		parts[0].Text != "The images returned by tool call toolu_1:" || parts[1].Type != "image_url" || parts[2].Text != "and now?" {
		t.Errorf("the user message after the tools is %s; want the images (named by call), then the user's text", sent.Messages[4].Content)
	}
	if got := reqs[0].ToolResults(); len(got) != 2 || got[0].Content != "a picture:\n[image: image/png, 1 KB, 8x4]" {
		t.Errorf("tool messages %+v; want the text, which names the image", got)
	}
	if !bytes.Equal(reqs[0].Body, reqs[1].Body) {
		t.Errorf("the same conversation encoded twice differs: prompt caching needs identical bytes")
	}
}
