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

// TestARequestsImagesFitItsByteBudget: six tool results of one 4.5 MB
// image each (each within max_image_bytes: a hostile server needs only a
// few calls) would make every later request over 27 MB, past Anthropic's
// 32 MB once the text is added, and a refused request fails every later
// turn. A request carries the newest images within MaxRequestImageBytes;
// the older results say theirs are no longer shown.
func TestARequestsImagesFitItsByteBudget(t *testing.T) {
	raw := append(testPNG(t, 2, 2), make([]byte, 3400<<10)...)
	pic := base64.StdEncoding.EncodeToString(raw)
	const n = 6
	var msgs []Message
	for i := range n {
		id := fmt.Sprintf("toolu_%d", i)
		msgs = append(msgs, userText("again"),
			Message{Role: "assistant", Content: []Block{{Type: "tool_use", ID: id, Name: "shot", Input: []byte(`{}`)}}},
			Message{Role: "user", Content: []Block{{Type: "tool_result", ToolUseID: id, Content: "a picture",
				Images: []Image{{MIMEType: "image/png", Data: pic}}}}})
	}
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Text: "ok"})
			if _, _, err := stream(t, f.openOn(s), Request{Messages: msgs}); err != nil {
				t.Fatal(err)
			}
			req := s.Requests()[0]
			total := 0
			for _, im := range req.Images() {
				total += base64.StdEncoding.EncodedLen(len(im.Data))
			}
			if total > MaxRequestImageBytes || len(req.Images()) == 0 {
				t.Errorf("%d images of %d bytes sent; want the newest within %d bytes", len(req.Images()), total, MaxRequestImageBytes)
			}
			kept := len(req.Images())
			trs := req.ToolResults()
			for i, tr := range trs {
				dropped := strings.Contains(tr.Content, "no longer shown to you: a request carries at most 20 MB of images")
				if dropped != (i < n-kept) {
					t.Errorf("tool result %d: %q (kept %d of %d)", i, tr.Content, kept, n)
				}
			}
		})
	}
}
