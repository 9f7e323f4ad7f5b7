package mcp

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/trust"
)

// The image, audio and structured-content tools of a real faultserver
// (-media) through a real registry: what the model may be shown is kept as
// image bytes, everything else is described saying why.
func TestResultMedia(t *testing.T) {
	r := startRegistry(t, []config.Server{faultServer(t, "m", "-media")}, Options{MaxImageBytes: 4096})
	if info := serverInfo(t, r, "m"); info.State != Connected {
		t.Fatalf("state %s (%s), want connected", info.State, info.Error)
	}

	res := call(t, r, "m__picture", `{}`)
	if res.IsError || len(res.Images) != 1 {
		t.Fatalf("picture = %+v, want one image", res)
	}
	img := res.Images[0]
	cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil || cfg.Width != 32 || cfg.Height != 24 || img.MIMEType != "image/png" || img.Width != 32 || img.Height != 24 {
		t.Errorf("image %s %dx%d, decodes as %dx%d (%v); want the server's 32x24 PNG", img.MIMEType, img.Width, img.Height, cfg.Width, cfg.Height, err)
	}
	if want := "a picture:\n[image: image/png, " + trust.ByteSize(len(img.Data)) + ", 32x24]"; res.Text != want {
		t.Errorf("text %q, want %q", res.Text, want)
	}

	described := []struct{ name, args, want string }{
		{"an image over max_image_bytes", `{"pad":8192}`, "; not shown to the model: over max_image_bytes (4 KB)]"},
		{"a type the model APIs do not take", `{"mimeType":"image/tiff"}`, "; not shown to the model: the model APIs take only image/png, image/jpeg, image/gif, image/webp]"},
		{"bytes of another type than declared", `{"mimeType":"image/jpeg"}`, "; not shown to the model: its bytes are not image/jpeg (they read as image/png)]"},
	}
	for _, tc := range described {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, r, "m__picture", tc.args)
			if res.IsError || len(res.Images) != 0 || !strings.Contains(res.Text, tc.want) {
				t.Errorf("got %q with %d images; want it described (%q), no image", res.Text, len(res.Images), tc.want)
			}
		})
	}
	t.Run("audio is described", func(t *testing.T) {
		res := call(t, r, "m__audio", `{}`)
		if want := "[audio: audio/wav, 16 B; not shown to the model: the model APIs agentls speaks take no audio in tool results]"; res.Text != want || len(res.Images) != 0 {
			t.Errorf("got %q; want %q", res.Text, want)
		}
	})
	t.Run("corrupt base64 is described and the server lives on", func(t *testing.T) {
		res := call(t, r, "m__bad_base64", `{}`)
		if want := "ERROR: m: the result of bad_base64 could not be read, so none of it was used: calling \"tools/call\": illegal base64 data at input byte 3"; res.Text != want || !res.IsError || len(res.Images) != 0 {
			t.Errorf("got %+v; want %q", res, want)
		}
		if res := call(t, r, "m__picture", `{}`); res.IsError || len(res.Images) != 1 {
			t.Errorf("the next call = %+v; want the picture", res)
		}
		if info := serverInfo(t, r, "m"); info.State != Connected || info.Error != "" {
			t.Errorf("after a corrupt result the server is %s (%s); want still connected, never stopped", info.State, info.Error)
		}
	})
}

// TestResultImagesTogetherWithinMaxImageBytes: a hostile server returns
// one result of 500 images, each within max_image_bytes. The images the
// model is shown, which the session file also keeps, fit max_image_bytes
// together; the rest are named in the text as not shown, saying why.
func TestResultImagesTogetherWithinMaxImageBytes(t *testing.T) {
	const limit = 16 << 10
	r := startRegistry(t, []config.Server{faultServer(t, "m", "-media")}, Options{MaxImageBytes: limit})
	res := call(t, r, "m__picture", `{"count":500}`)
	if res.IsError || len(res.Images) == 0 {
		t.Fatalf("picture = %q with %d images; want the first ones kept", res.Text, len(res.Images))
	}
	total := 0
	for _, im := range res.Images {
		total += len(im.Data)
	}
	if total > limit {
		t.Errorf("%d images of %d bytes kept from one result; want at most max_image_bytes (%d) together", len(res.Images), total, limit)
	}
	if n := strings.Count(res.Text, "; not shown to the model: this result's images already reach max_image_bytes (16 KB)]"); n != 500-len(res.Images) {
		t.Errorf("%d images described as over the result's budget, want %d: %q", n, 500-len(res.Images), capText(res.Text, 600))
	}
}

// A tool with an outputSchema (a real faultserver's "typed"): a result that
// matches passes, one that does not, or that has no structuredContent, is
// an error for the model saying what did not match.
func TestStructuredContentChecked(t *testing.T) {
	r := startRegistry(t, []config.Server{faultServer(t, "m", "-media")}, Options{})
	tests := []struct {
		mode    string
		isError bool
		want    string
	}{
		{"ok", false, `{"temp":21.5,"city":"Lyon"}`},
		{"wrong", true, `ERROR: m: the structuredContent of typed does not match its outputSchema: `},
		{"missing", true, "ERROR: m: typed declares an outputSchema but its result has no structuredContent (the MCP spec requires one); the result was not used"},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			res := call(t, r, "m__typed", `{"mode":"`+tc.mode+`"}`)
			if res.IsError != tc.isError || !strings.HasPrefix(res.Text, tc.want) {
				t.Errorf("got %+v; want isError %v and text starting %q", res, tc.isError, tc.want)
			}
			if tc.mode == "wrong" && !strings.Contains(res.Text, "temp") {
				t.Errorf("got %q; want the mismatch named (temp is a string, the schema says number)", res.Text)
			}
		})
	}
}
