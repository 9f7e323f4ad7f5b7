package mcp

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

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
		{"images and audio are described, not inlined",
			&sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 3072)}, &sdk.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 10)}}}, 100,
			Result{Text: "[image/png, 3 KB]\n[audio/wav, 10 B]"}},
		{"embedded text resources are inlined and blobs described",
			&sdk.CallToolResult{Content: []sdk.Content{
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "x://t", Text: "inside"}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "x://b", MIMEType: "application/zip", Blob: make([]byte, 2*1024*1024)}},
				&sdk.ResourceLink{URI: "x://l"}}}, 200,
			Result{Text: "inside\n[resource x://b: application/zip, 2.0 MB]\n[resource link: x://l]"}},
		{"structured content is used when there is no content",
			&sdk.CallToolResult{StructuredContent: map[string]any{"n": 1}}, 100,
			Result{Text: `{"n":1}`}},
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
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := convertResult("srv", tc.res, tc.max); got != tc.want {
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
