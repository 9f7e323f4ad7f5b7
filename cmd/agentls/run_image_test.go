package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// TestRunToolImages: `agentls run` with the real server-everything over
// Streamable HTTP; the model calls get-tiny-image and the fake model's next
// request carries the server's PNG bytes as an image, where each wire puts
// it: inside the tool_result on Anthropic's, in the user message after the
// tool messages on OpenAI's. Events and the transcript name the image,
// never its base64; the session file keeps it, so a continued session
// sends it again.
func TestRunToolImages(t *testing.T) {
	want := testenv.EverythingTinyImage(t)
	for _, format := range []string{"anthropic", "openai"} {
		t.Run(format, func(t *testing.T) {
			everything := testenv.EverythingHTTP(t, "streamableHttp")
			e := newRunEnv(t, format, `"ev__*" = "allow"`)
			cfg, err := os.ReadFile(e.config)
			if err != nil {
				t.Fatal(err)
			}
			// fake-model is no vision model agentls knows: say it takes images.
			cfg = bytes.Replace(cfg, []byte("[model]\n"), []byte("[model]\nimages = true\n"), 1)
			cfg = append(cfg, fmt.Sprintf("\n[mcp.servers.ev]\nurl = %q\n", everything.URL)...)
			if err := os.WriteFile(e.config, cfg, 0o600); err != nil {
				t.Fatal(err)
			}
			e.model.Script(modeltest.Turn{Text: "Looking.", ToolCalls: []modeltest.ToolCall{{ID: "call_img", Name: "ev__get-tiny-image", Input: `{}`}}},
				modeltest.Turn{Text: "It is the MCP logo."}, modeltest.Turn{Text: "Still the logo."})
			code, stdout, stderr := e.run(t, "--json", "show me the tiny image")
			if code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			where := map[string]string{"anthropic": "tool_result", "openai": "user"}[format]
			checkImage := func(req modeltest.Request) {
				t.Helper()
				imgs := req.Images()
				if len(imgs) != 1 || imgs[0].Where != where || imgs[0].ToolUseID != "call_img" || imgs[0].MIMEType != "image/png" || !bytes.Equal(imgs[0].Data, want) {
					t.Errorf("the model got images %+v; want the server's %d-byte PNG in the %s block of call_img", imgs, len(want), where)
				}
			}
			reqs := e.model.ModelRequests(format)
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2; stderr: %s", len(reqs), stderr)
			}
			checkImage(reqs[1])
			if trs := reqs[1].ToolResults(); len(trs) != 1 || !strings.Contains(trs[0].Content, "Here's the image you requested:\n[image: image/png, ") {
				t.Errorf("tool results %+v; want the text naming the image", trs)
			}
			var sessionID string
			sc := bufio.NewScanner(strings.NewReader(stdout))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var ev wire.Event
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
					t.Fatalf("line %q: %v", sc.Text(), err)
				}
				sessionID = ev.SessionID
				if ev.Type == "tool_result" && (ev.IsError || !strings.Contains(ev.Output, "[image: image/png, ")) {
					t.Errorf("tool_result event %+v; want the image named", ev)
				}
			}
			if strings.Contains(stdout, "iVBORw0KGgo") {
				t.Errorf("the events carry the image's base64:\n%.500s", stdout)
			}
			tr, err := os.ReadFile(filepath.Join(e.state, "agentls", "transcripts", sessionID+".md"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(tr), "[image: image/png, ") || strings.Contains(string(tr), "iVBORw0KGgo") {
				t.Errorf("the transcript should name the image, not inline it:\n%s", tr)
			}
			code, stdout, stderr = e.run(t, "--session", sessionID, "and again?")
			if code != 0 || !strings.Contains(stdout, "Still the logo.") {
				t.Fatalf("continued: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			reqs = e.model.ModelRequests(format)
			checkImage(reqs[len(reqs)-1])
		})
	}
}
