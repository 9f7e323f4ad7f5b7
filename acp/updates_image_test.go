package acp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// TestToolImageReachesTheEditor: an image a tool returned (the fault
// server's 32x24 PNG) reaches the ACP client as an image content block of
// the call's tool_call_update, beside the text naming it, within what
// schema/v1 allows (the harness fails on any violation); the model got
// the same bytes.
func TestToolImageReachesTheEditor(t *testing.T) {
	marker := "acp-image-" + t.Name()
	bin := testenv.GoBinary(t, "./internal/faultserver")
	w := newWorld(t, fmt.Sprintf("[mcp.servers.fs]\ncommand = %q\nargs = [\"-media\", \"-marker\", %q]\n\n[mcp.policy]\n\"fs__picture\" = \"allow\"\n", bin, marker))
	// fake-model is no vision model agentls knows: say it takes images.
	cfg, err := os.ReadFile(w.config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.config, bytes.Replace(cfg, []byte("[model]\n"), []byte("[model]\nimages = true\n"), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	w.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "fs__picture", Input: `{}`}}},
		modeltest.Turn{Text: "a gradient"},
	)
	out := w.run(plan{Marker: marker, Steps: []step{{Op: "initialize"}, {Op: "new", Cwd: w.root}, {Op: "prompt", Text: "show me"}}})
	text, data, mime := toolImage(out, "c1")
	if !strings.Contains(text, "[image: image/png, ") || strings.Contains(text, "iVBORw0KGgo") {
		t.Errorf("tool call text %q; want the image named, not inlined", text)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil || mime != "image/png" {
		t.Fatalf("image block %s %.40q (%v); want a base64 PNG", mime, data, err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(raw)); err != nil || cfg.Width != 32 || cfg.Height != 24 {
		t.Errorf("the image block decodes as %dx%d (%v); want the server's 32x24 PNG", cfg.Width, cfg.Height, err)
	}
	reqs := w.model.Requests()
	if imgs := reqs[len(reqs)-1].Images(); len(imgs) != 1 || !bytes.Equal(imgs[0].Data, raw) {
		t.Errorf("the model got images %+v; want the same PNG the editor got", imgs)
	}
	// session/load replays the call from the session file, image included.
	var ns newSessionResponse
	json.Unmarshal(out.Steps[1].Result, &ns)
	again := w.run(plan{Marker: marker, Steps: []step{{Op: "initialize"}, {Op: "load", Cwd: w.root, SessionID: ns.SessionID}}})
	if again.Steps[1].Error != nil {
		t.Fatalf("session/load: %+v", again.Steps[1].Error)
	}
	if _, replayed, _ := toolImage(again, "c1"); replayed != data {
		t.Errorf("the replayed call carries image data %.40q; want the same as live", replayed)
	}
}

// toolImage is the text and the image (base64, type) of a call's updates.
func toolImage(out clientRun, id string) (text, data, mime string) {
	for _, u := range out.toolUpdates(id) {
		for _, c := range u.contents() {
			if c.Type != "content" || c.Content == nil {
				continue
			}
			switch c.Content.Type {
			case "text":
				text += c.Content.Text
			case "image":
				data, mime = c.Content.Data, c.Content.MimeType
			}
		}
	}
	return text, data, mime
}
