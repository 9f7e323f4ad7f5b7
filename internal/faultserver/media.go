package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"image"
	"image/color"
	"image/png"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var media = flag.Bool("media", false, "add tools returning images, audio and structured content: picture, audio, typed, bad_base64")

// picturePNG is a real 32x24 PNG (a gradient), so checks that read an
// image's header see a true one.
var picturePNG = func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 32, 24))
	for x := 0; x < 32; x++ {
		for y := 0; y < 24; y++ {
			img.Set(x, y, color.RGBA{R: uint8(x * 8), G: uint8(y * 10), B: 128, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}()

type pictureIn struct {
	MIMEType string `json:"mimeType,omitempty"` // declared type; default image/png
	Pad      int    `json:"pad,omitempty"`      // zero bytes appended, to make it big
	Count    int    `json:"count,omitempty"`    // how many copies of the image (default 1)
}

type typedIn struct {
	Mode string `json:"mode"` // "ok", "wrong" (temp is a string) or "missing" (no structuredContent)
}

type weather struct {
	Temp float64 `json:"temp"`
	City string  `json:"city"`
}

// corruptMarker is the image data bad_base64 sends; its base64 is
// replaced on the wire by corruptBase64.
var corruptMarker = []byte("agentls faultserver corrupt marker")

const corruptBase64 = "not*base64!"

func addMedia(s *mcp.Server) {
	if !*media {
		return
	}
	mcp.AddTool(s, &mcp.Tool{Name: "picture", Description: "Returns text and a 32x24 PNG (declared as mimeType, padded with pad zero bytes), count times."},
		func(_ context.Context, _ *mcp.CallToolRequest, in pictureIn) (*mcp.CallToolResult, any, error) {
			mime := in.MIMEType
			if mime == "" {
				mime = "image/png"
			}
			data := append(append([]byte(nil), picturePNG...), make([]byte, in.Pad)...)
			content := []mcp.Content{&mcp.TextContent{Text: "a picture:"}}
			for range max(in.Count, 1) {
				content = append(content, &mcp.ImageContent{MIMEType: mime, Data: data})
			}
			return &mcp.CallToolResult{Content: content}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "audio", Description: "Returns a short audio clip."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF\x24\x00\x00\x00WAVEfmt ")}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "bad_base64", Description: "Returns text and an image whose base64 data is corrupt."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a broken picture:"},
				&mcp.ImageContent{MIMEType: "image/png", Data: corruptMarker},
			}}, nil, nil
		})
	// The SDK would check our own output against the schema; the raw
	// handler lets "wrong" and "missing" break the promise on purpose.
	s.AddTool(&mcp.Tool{Name: "typed", Description: "Returns the weather as structured content (mode: ok, wrong, missing).",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"mode": map[string]any{"type": "string"}}},
		OutputSchema: map[string]any{"type": "object", "required": []any{"temp", "city"},
			"properties": map[string]any{"temp": map[string]any{"type": "number"}, "city": map[string]any{"type": "string"}}}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in typedIn
			if len(req.Params.Arguments) > 0 {
				if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
					return nil, err
				}
			}
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"temp":21.5,"city":"Lyon"}`}}}
			switch in.Mode {
			case "ok":
				res.StructuredContent = weather{Temp: 21.5, City: "Lyon"}
			case "wrong":
				res.StructuredContent = map[string]any{"temp": "warm", "city": "Lyon"}
			}
			return res, nil
		})
}

// corrupting wraps the server's connection so bad_base64's image data goes
// out as corruptBase64: the SDK itself only ever writes valid base64.
type corrupting struct{ mcp.Transport }

func (t corrupting) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return corruptConn{c}, nil
}

type corruptConn struct{ mcp.Connection }

func (c corruptConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok {
		marker := []byte(`"` + base64.StdEncoding.EncodeToString(corruptMarker) + `"`)
		r.Result = bytes.ReplaceAll(r.Result, marker, []byte(`"`+corruptBase64+`"`))
	}
	return c.Connection.Write(ctx, msg)
}
