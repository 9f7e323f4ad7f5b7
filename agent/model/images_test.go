package model

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// A session with more images than a request may carry sends the newest
// MaxRequestImages on both wires; the oldest tool results say theirs are
// no longer shown.
func TestARequestCarriesAtMostTheNewestImages(t *testing.T) {
	pic := base64.StdEncoding.EncodeToString(testPNG(t, 2, 2))
	var msgs []Message
	for i := range MaxRequestImages/2 + 1 { // two images per call: 102
		id := fmt.Sprintf("toolu_%d", i)
		msgs = append(msgs, userText("again"),
			Message{Role: "assistant", Content: []Block{{Type: "tool_use", ID: id, Name: "shot", Input: []byte(`{}`)}}},
			Message{Role: "user", Content: []Block{{Type: "tool_result", ToolUseID: id, Content: "two pictures",
				Images: []Image{{MIMEType: "image/png", Data: pic}, {MIMEType: "image/png", Data: pic}}}}})
	}
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Text: "ok"})
			if _, _, err := stream(t, f.openOn(s), Request{Messages: msgs}); err != nil {
				t.Fatal(err)
			}
			req := s.Requests()[0]
			imgs := req.Images()
			if len(imgs) != MaxRequestImages || imgs[0].ToolUseID != "toolu_1" {
				t.Errorf("%d images sent, the first of %s; want %d, from toolu_1 on", len(imgs), imgs[0].ToolUseID, MaxRequestImages)
			}
			trs := req.ToolResults()
			if want := "two pictures\n[2 of the image(s) above are no longer shown to you: a request carries at most the newest 100]"; trs[0].Content != want || strings.Contains(trs[1].Content, "no longer") {
				t.Errorf("tool results %q, %q; want the first to say its images are no longer shown, the second as it was", trs[0].Content, trs[1].Content)
			}
		})
	}
}
