package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"reflect"
	"strings"
	"testing"

	"github.com/agentls/agentls/trust"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// gif1x1 is the smallest GIF: one transparent pixel.
const gif1x1 = "GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"

func TestConvertResult(t *testing.T) {
	tests := []struct {
		name string
		res  *sdk.CallToolResult
		max  int
		want Result
	}{
		{"text contents are joined by newlines",
			&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}}, 100,
			Result{Text: "a\nb"}},
		{"an image is kept and named in the text, audio is described",
			&sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/gif", Data: []byte(gif1x1)}, &sdk.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 10)}}}, 300,
			Result{Text: "[image: image/gif, 43 B, 1x1]\n[audio: audio/wav, 10 B; not shown to the model: the model APIs agentls speaks take no audio in tool results]",
				Images: []Image{{MIMEType: "image/gif", Data: []byte(gif1x1), Width: 1, Height: 1}}}},
		{"an empty image or one without a type is described",
			&sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png"}, &sdk.ImageContent{Data: []byte(gif1x1)}}}, 300,
			Result{Text: "[image: image/png, 0 B; not shown to the model: it is empty]\n[image: image, 43 B; not shown to the model: the model APIs take only image/png, image/jpeg, image/gif, image/webp]"}},
		{"embedded text resources are inlined and blobs described",
			&sdk.CallToolResult{Content: []sdk.Content{
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "x://t", Text: "inside"}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "x://b", MIMEType: "application/zip", Blob: make([]byte, 2*1024*1024)}},
				&sdk.ResourceLink{URI: "x://l"}}}, 200,
			Result{Text: "inside\n[resource x://b: application/zip, 2.0 MB]\n[resource link: x://l]"}},
		{"structured content is used when there is no content, and kept for an App",
			&sdk.CallToolResult{StructuredContent: map[string]any{"n": 1}}, 100,
			Result{Text: `{"n":1}`, Structured: json.RawMessage(`{"n":1}`)}},
		{"structured content beside text is kept for an App only",
			&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "now"}}, StructuredContent: map[string]any{"time": "now"}}, 100,
			Result{Text: "now", Structured: json.RawMessage(`{"time":"now"}`)}},
		{"isError becomes an ERROR line naming the server",
			&sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "bad input"}}}, 100,
			Result{Text: "ERROR: srv: bad input", IsError: true}},
		{"a long result is cut with a marker saying how much",
			&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("x", 5000)}}}, 1000,
			Result{Text: strings.Repeat("x", 1000) + "\n[result cut: 4 KB of 5 KB not shown; result_max_bytes is 1000]"}},
		{"a cut never splits a character",
			&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ééé"}}}, 3,
			Result{Text: "é\n[result cut: 4 B of 6 B not shown; result_max_bytes is 3]"}},
	}
	var wide bytes.Buffer
	png.Encode(&wide, image.NewGray(image.Rect(0, 0, MaxImageSide+1, 1)))
	tests = append(tests, struct {
		name string
		res  *sdk.CallToolResult
		max  int
		want Result
	}{"an image wider than the APIs take is described",
		&sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: wide.Bytes()}}}, 300,
		Result{Text: fmt.Sprintf("[image: image/png, %s, 8001x1; not shown to the model: larger than the 8000x8000 pixels the model APIs take]", trust.ByteSize(wide.Len()))}})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := convertResult("srv", tc.res, resultLimits{text: tc.max, image: 1 << 20}); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestCapDescription(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"a short description is kept", "abc", 5, "abc"},
		{"a long one is cut to max characters with an ellipsis", "abcdefgh", 5, "abcd…"},
		{"characters, not bytes, are counted", "ééééé", 3, "éé…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := capDescription(tc.in, tc.max); got != tc.want {
				t.Errorf("capDescription(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
		})
	}
}
