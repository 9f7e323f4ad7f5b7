package agent

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model"
)

// An image counts by its pixels, never by its base64, and elision drops it
// with its result, saying so.
func TestCompactionCountsAndElidesImages(t *testing.T) {
	big := strings.Repeat("A", 400000) // the base64 of a ~300 KB image
	withImage := func(w, h int) []model.Message {
		return []model.Message{{Role: "user", Content: []model.Block{{Type: "tool_result", ToolUseID: "t1", Content: "[image: image/png, 293 KB, 200x150]",
			Images: []model.Image{{MIMEType: "image/png", Data: big, Width: w, Height: h}}}}}}
	}
	text := []model.Message{{Role: "user", Content: []model.Block{{Type: "tool_result", ToolUseID: "t1", Content: "[image: image/png, 293 KB, 200x150]"}}}}
	if got, want := messageTokens(withImage(200, 150))-messageTokens(text), 41; got != want {
		t.Errorf("a 200x150 image adds %d tokens; want %d (200*150/750+1), not its base64's %d", got, want, len(big)/4)
	}
	if got, want := messageTokens(withImage(0, 0))-messageTokens(text), model.MaxImageTokens; got != want {
		t.Errorf("an image of unknown size adds %d tokens; want %d", got, want)
	}
	uses := map[string]model.Block{"t1": {Type: "tool_use", ID: "t1", Name: "ev__get-tiny-image", Input: []byte(`{}`)}}
	got := elideResults(withImage(200, 150)[0], uses).Content[0]
	if len(got.Images) != 0 || !strings.Contains(got.Content, "elided this result (35 bytes and 1 image(s))") || !strings.Contains(got.Content, "ev__get-tiny-image") {
		t.Errorf("elided result %+v; want the image dropped and the stub saying so", got)
	}
}
