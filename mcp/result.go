package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig reads the sizes of the formats models take
	_ "image/jpeg"
	_ "image/png"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/trust"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ImageTypes are the image types the model APIs take (Anthropic Messages
// and OpenAI chat completions alike); an image of any other type reaches
// the model as a description.
var ImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// MaxImageSide is the most pixels an image may have on a side: Anthropic's
// Messages API refuses bigger ones.
const MaxImageSide = 8000

// convertResult turns a tool result into what the model gets: text content
// joined; an image it may be shown kept as an Image and named in the text
// where it stood ("[image: image/png, 3 KB]"); audio, blobs and images it
// may not be shown described in place, saying why; isError as an ERROR:
// line; the text capped at max bytes. The images kept fit the image cap
// together, as the text fits its own: a result of a thousand images, each
// within the cap, would otherwise grow the session file and every later
// request by all of them.
func convertResult(server string, res *sdk.CallToolResult, lim resultLimits) Result {
	var parts []string
	var images []Image
	imageBytes := 0
	for _, c := range res.Content {
		if img, ok := c.(*sdk.ImageContent); ok {
			desc, keep := checkImage(img, lim.image, lim.image-imageBytes)
			if keep != nil {
				images = append(images, *keep)
				imageBytes += len(keep.Data)
			}
			parts = append(parts, desc)
			continue
		}
		parts = append(parts, describeContent(c))
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	text := strings.Join(parts, "\n")
	if res.IsError {
		r := errorResult(server, capText(text, lim.text))
		r.Images = images
		return r
	}
	r := Result{Text: capText(text, lim.text), Images: images}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil && len(b) <= lim.text {
			r.Structured = b
		}
	}
	return r
}

// resultLimits are the caps on one result: its text, and its images.
type resultLimits struct{ text, image int }

// checkImage decides whether an image goes to the model: its type must be
// one the APIs take, its bytes must be that type (the APIs refuse an image
// whose bytes are another type, and a refused image in the history would
// fail every later turn), and it must fit max bytes and the room left of
// them by the result's earlier images. It returns the line the text
// gets, and the image when it is kept.
func checkImage(c *sdk.ImageContent, max, room int) (string, *Image) {
	mime := orUnknown(c.MIMEType, "image")
	head := fmt.Sprintf("image: %s, %s", mime, trust.ByteSize(len(c.Data)))
	notShown := func(why string) (string, *Image) {
		return "[" + head + "; not shown to the model: " + why + "]", nil
	}
	switch {
	case !isImageType(c.MIMEType):
		return notShown("the model APIs take only " + strings.Join(ImageTypes, ", "))
	case len(c.Data) == 0:
		return notShown("it is empty")
	case len(c.Data) > max:
		return notShown(fmt.Sprintf("over max_image_bytes (%s)", trust.ByteSize(max)))
	case len(c.Data) > room:
		return notShown(fmt.Sprintf("this result's images already reach max_image_bytes (%s)", trust.ByteSize(max)))
	}
	if got := http.DetectContentType(c.Data); got != c.MIMEType {
		return notShown(fmt.Sprintf("its bytes are not %s (they read as %s)", c.MIMEType, got))
	}
	img := &Image{MIMEType: c.MIMEType, Data: c.Data}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(c.Data)); err == nil {
		img.Width, img.Height = cfg.Width, cfg.Height
		head += fmt.Sprintf(", %dx%d", cfg.Width, cfg.Height)
		if cfg.Width > MaxImageSide || cfg.Height > MaxImageSide {
			return notShown(fmt.Sprintf("larger than the %dx%d pixels the model APIs take", MaxImageSide, MaxImageSide))
		}
	}
	return "[" + head + "]", img
}

func isImageType(mime string) bool {
	for _, t := range ImageTypes {
		if mime == t {
			return true
		}
	}
	return false
}

func describeContent(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %s; not shown to the model: the model APIs agentls speaks take no audio in tool results]", orUnknown(c.MIMEType, "audio"), trust.ByteSize(len(c.Data)))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource link: %s]", c.URI)
	case *sdk.EmbeddedResource:
		if c.Resource == nil {
			return "[embedded resource]"
		}
		if c.Resource.Text != "" {
			return c.Resource.Text
		}
		return fmt.Sprintf("[resource %s: %s, %s]", c.Resource.URI, orUnknown(c.Resource.MIMEType, "binary"), trust.ByteSize(len(c.Resource.Blob)))
	}
	return fmt.Sprintf("[%T content]", c)
}

func orUnknown(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// capText keeps at most max bytes of s (on a character boundary) and says how
// much was cut. Results are third-party text the model reads: the cap bounds
// context cost and the room for injected instructions.
func capText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[result cut: %s of %s not shown; result_max_bytes is %d]", trust.ByteSize(len(s)-cut), trust.ByteSize(len(s)), max)
}

// errorResult is what every failure looks like to the model and the user.
func errorResult(server, what string) Result {
	return Result{Text: "ERROR: " + server + ": " + what, IsError: true}
}
