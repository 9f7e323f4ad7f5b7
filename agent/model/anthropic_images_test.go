package model

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// testPNG is a real w x h PNG.
func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// imageConversation is a turn whose first tool returned an image, the
// second only text, and the user then wrote more.
func imageConversation(pic []byte) Request {
	return Request{Messages: []Message{
		userText("look at the screen"),
		{Role: "assistant", Content: []Block{
			{Type: "tool_use", ID: "toolu_1", Name: "shot", Input: []byte(`{}`)},
			{Type: "tool_use", ID: "toolu_2", Name: "echo", Input: []byte(`{}`)},
		}},
		{Role: "user", Content: []Block{
			{Type: "tool_result", ToolUseID: "toolu_1", Content: "a picture:\n[image: image/png, 1 KB, 8x4]",
				Images: []Image{{MIMEType: "image/png", Data: base64.StdEncoding.EncodeToString(pic), Width: 8, Height: 4}}},
			{Type: "tool_result", ToolUseID: "toolu_2", Content: "plain"},
			{Type: "text", Text: "and now?"},
		}},
	}}
}

func TestToolResultImagesReachAnthropicInTheToolResult(t *testing.T) {
	s := modeltest.New(t)
	s.Script(modeltest.Turn{Text: "a grey box"}, modeltest.Turn{Text: "a grey box"})
	pic := testPNG(t, 8, 4)
	p := formats()[0].openOn(s)
	for range 2 {
		if _, _, err := stream(t, p, imageConversation(pic)); err != nil {
			t.Fatal(err)
		}
	}
	reqs := s.ModelRequests("anthropic")
	imgs := reqs[0].Images()
	if len(imgs) != 1 || imgs[0].Where != "tool_result" || imgs[0].ToolUseID != "toolu_1" || imgs[0].MIMEType != "image/png" || !bytes.Equal(imgs[0].Data, pic) {
		t.Fatalf("images sent %+v; want the PNG's bytes in toolu_1's tool_result", imgs)
	}
	got := reqs[0].ToolResults()
	if len(got) != 2 || got[0].Content != "a picture:\n[image: image/png, 1 KB, 8x4]" || got[1].Content != "plain" {
		t.Errorf("tool results %+v; want the text beside the image, the second as it was", got)
	}
	if !bytes.Equal(reqs[0].Body, reqs[1].Body) {
		t.Errorf("the same conversation encoded twice differs: prompt caching needs identical bytes")
	}
}

func TestImageTokens(t *testing.T) {
	tests := []struct {
		name string
		im   Image
		want int
	}{
		{"a small image, by Anthropic's width*height/750", Image{Width: 200, Height: 150}, 41},
		{"a big one at most what the API scales it to", Image{Width: 4000, Height: 3000}, MaxImageTokens},
		{"an unknown size counts as the most", Image{}, MaxImageTokens},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.im.ImageTokens(); got != tc.want {
				t.Errorf("ImageTokens() = %d; want %d", got, tc.want)
			}
		})
	}
}

// With [model] images = false (a model that takes none) no image goes out
// on either wire: the tool result's text names it and says why it is not
// shown.
func TestToolResultImagesNotSentWhenTheModelTakesNone(t *testing.T) {
	pic := testPNG(t, 8, 4)
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Text: "ok"})
			p := f.openOn(s)
			switch p := p.(type) {
			case *anthropic:
				p.noImages = true
			case *openai:
				p.noImages = true
			}
			if _, _, err := stream(t, p, imageConversation(pic)); err != nil {
				t.Fatal(err)
			}
			req := s.Requests()[0]
			if imgs := req.Images(); len(imgs) != 0 {
				t.Errorf("%d images sent; want none", len(imgs))
			}
			if got := req.ToolResults(); len(got) != 2 || !strings.HasSuffix(got[0].Content, "[image: image/png, 1 KB, 8x4]\n[the image(s) above are not shown to you: this model is not sent images ([model] images = false)]") || got[1].Content != "plain" {
				t.Errorf("tool results %+v; want the image named and why it is not shown", got)
			}
		})
	}
}
