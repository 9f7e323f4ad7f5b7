package modeltest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentls/agentls/agent/model/providers"
)

// Image is one image a request carried, decoded from its wire form.
type Image struct {
	// Where is "tool_result" (Anthropic: an image block inside a
	// tool_result's content) or "user" (an image block or image_url part of
	// a user message's own content).
	Where string
	// ToolUseID is, for Anthropic, the tool_result's tool_use_id; for
	// OpenAI, the tool_call_id of the tool message the user message
	// directly follows ("" when it follows none).
	ToolUseID string
	MIMEType  string
	Data      []byte
}

// imageTypes are the media types both APIs take.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

type wireImage struct {
	Type   string `json:"type"`
	Source *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// Images returns the images in the request's messages, in order, decoded.
// An image the real API would refuse makes the server answer 400 (see
// checkImages), and is left out here.
func (r Request) Images() []Image {
	out, _ := images(r.Format, r.decode())
	return out
}

// images walks the messages for images, and says what the real API would
// refuse about them ("" when nothing).
func images(format providers.Wire, b body) ([]Image, string) {
	var out []Image
	after := ""
	for i, m := range b.Messages {
		var parts []wireImage
		json.Unmarshal(m.Content, &parts) // a string content has no images
		for _, p := range parts {
			switch {
			case format == providers.Messages && p.Type == "tool_result":
				var inner []wireImage
				json.Unmarshal(p.Content, &inner)
				for _, q := range inner {
					if q.Type != "image" && q.Type != "text" {
						return nil, fmt.Sprintf("messages.%d: tool_result content blocks must be text or image, got %q", i, q.Type)
					}
					if q.Type == "image" {
						im, bad := anthropicImage(q)
						if bad != "" {
							return nil, fmt.Sprintf("messages.%d: %s", i, bad)
						}
						im.Where, im.ToolUseID = "tool_result", p.ToolUseID
						out = append(out, im)
					}
				}
			case format == providers.Messages && p.Type == "image":
				im, bad := anthropicImage(p)
				if bad != "" {
					return nil, fmt.Sprintf("messages.%d: %s", i, bad)
				}
				im.Where = "user"
				out = append(out, im)
			case format == providers.ChatCompletions && p.Type == "image_url":
				if m.Role != "user" {
					return nil, fmt.Sprintf("Invalid 'messages[%d]'. Image URLs are only allowed for messages with role 'user', but this message with role '%s' contains an image URL.", i, m.Role)
				}
				im, bad := openaiImage(p)
				if bad != "" {
					return nil, fmt.Sprintf("messages[%d]: %s", i, bad)
				}
				im.Where, im.ToolUseID = "user", after
				out = append(out, im)
			}
		}
		after = ""
		if format == providers.ChatCompletions && m.Role == "tool" {
			after = m.ToolCallID
		}
	}
	return out, ""
}

func anthropicImage(p wireImage) (Image, string) {
	s := p.Source
	if s == nil || s.Type != "base64" {
		return Image{}, "image.source: only base64 sources are accepted here"
	}
	return decodeImage(s.MediaType, s.Data)
}

func openaiImage(p wireImage) (Image, string) {
	if p.ImageURL == nil {
		return Image{}, "image_url part without image_url"
	}
	u := p.ImageURL.URL
	rest, ok := strings.CutPrefix(u, "data:")
	mime, data, ok2 := strings.Cut(rest, ";base64,")
	if !ok || !ok2 {
		return Image{}, fmt.Sprintf("image_url: only base64 data URLs are accepted here, got %.40q", u)
	}
	return decodeImage(mime, data)
}

// decodeImage checks an image as the APIs do: a type they take, valid
// base64, bytes of that type.
func decodeImage(mime, data string) (Image, string) {
	ok := false
	for _, t := range imageTypes {
		ok = ok || mime == t
	}
	if !ok {
		return Image{}, fmt.Sprintf("image media type %q: expected one of %s", mime, strings.Join(imageTypes, ", "))
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return Image{}, "invalid base64 image data: " + err.Error()
	}
	if got := http.DetectContentType(raw); got != mime {
		return Image{}, fmt.Sprintf("Image does not match the provided media type %s (its bytes read as %s)", mime, got)
	}
	return Image{MIMEType: mime, Data: raw}, ""
}

// checkImages is the refusal a real API gives for the request's images.
func checkImages(format providers.Wire, raw []byte) *refusal {
	var b body
	if json.Unmarshal(raw, &b) != nil {
		return nil // the body check answers that
	}
	if _, bad := images(format, b); bad != "" {
		return &refusal{status: 400, typ: "invalid_request_error", m: bad}
	}
	return nil
}
