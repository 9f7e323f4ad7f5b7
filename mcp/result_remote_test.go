package mcp

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/trust"
)

// The real server-everything over Streamable HTTP: get-tiny-image's PNG
// comes through as image bytes between its two texts, and
// get-structured-content's result passes its own outputSchema (zod's,
// as TypeScript servers write them).
func TestResultMediaFromTheReferenceServer(t *testing.T) {
	everything := testenv.EverythingHTTP(t, "streamableHttp")
	r := startRegistry(t, []config.Server{remoteServer("ev", everything.URL, nil)}, Options{})
	if info := serverInfo(t, r, "ev"); info.State != Connected {
		t.Fatalf("state %s (%s), want connected", info.State, info.Error)
	}
	for _, w := range serverInfo(t, r, "ev").Warnings {
		if strings.Contains(w, "outputSchema") {
			t.Errorf("warning %q: the reference server's outputSchema must be usable", w)
		}
	}
	res := call(t, r, "ev__get-tiny-image", `{}`)
	if res.IsError || len(res.Images) != 1 {
		t.Fatalf("get-tiny-image = %+v, want one image", res)
	}
	im := res.Images[0]
	if im.MIMEType != "image/png" || http.DetectContentType(im.Data) != "image/png" || im.Width != 20 || im.Height != 20 {
		t.Errorf("image %s %dx%d (%d bytes); want the server's 20x20 PNG", im.MIMEType, im.Width, im.Height, len(im.Data))
	}
	if want := "Here's the image you requested:\n[image: image/png, " + trust.ByteSize(len(im.Data)) + ", 20x20]\nThe image above is the MCP logo."; res.Text != want {
		t.Errorf("text %q, want %q", res.Text, want)
	}
	if !strings.HasPrefix(base64.StdEncoding.EncodeToString(im.Data), "iVBORw0KGgo") {
		t.Errorf("the bytes are not the server's PNG")
	}
	r.mu.Lock()
	srv := r.servers["ev"]
	r.mu.Unlock()
	if r.outputSchema(srv, "get-structured-content") == nil {
		t.Fatalf("get-structured-content's outputSchema was not resolved, so nothing is checked")
	}
	res = call(t, r, "ev__get-structured-content", `{"location":"Chicago"}`)
	if res.IsError || !strings.Contains(res.Text, `"temperature"`) {
		t.Errorf("get-structured-content = %+v; want its result, which matches its outputSchema", res)
	}
}
