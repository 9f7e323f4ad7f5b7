package modeltest_test

import (
	"context"
	"encoding/base64"
	"io"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// gif1x1 is the smallest GIF, one pixel.
const gif1x1 = "GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"

// The fake decodes images in both wire formats and refuses, as the real
// APIs do, the ones they refuse.
func TestImagesAreDecodedAndCheckedInBothFormats(t *testing.T) {
	gif := base64.StdEncoding.EncodeToString([]byte(gif1x1))
	anthropic := func(mime, data string) string {
		return `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"look"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"shot","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"x"},{"type":"image","source":{"type":"base64","media_type":"` + mime + `","data":"` + data + `"}}]}]}]}`
	}
	openai := func(role, url string) string {
		return `{"model":"m","messages":[{"role":"user","content":"look"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"shot","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"x"},{"role":"` + role + `","content":[{"type":"image_url","image_url":{"url":"` + url + `"}}]}]}`
	}
	tests := []struct {
		name, path, body string
		refusal          string // "" when accepted
		where, toolUseID string
	}{
		{"anthropic, in a tool_result", "/v1/messages", anthropic("image/gif", gif), "", "tool_result", "toolu_1"},
		{"anthropic, bytes of another type", "/v1/messages", anthropic("image/png", gif), "Image does not match the provided media type image/png", "", ""},
		{"anthropic, a type it does not take", "/v1/messages", anthropic("image/tiff", gif), "image/tiff\\\": expected one of image/png", "", ""},
		{"anthropic, corrupt base64", "/v1/messages", anthropic("image/gif", "not*base64"), "invalid base64 image data", "", ""},
		{"openai, a user message after a tool message", "/v1/chat/completions", openai("user", "data:image/gif;base64,"+gif), "", "user", "call_1"},
		{"openai, an image in a tool message", "/v1/chat/completions", openai("tool", "data:image/gif;base64,"+gif), "Image URLs are only allowed for messages with role 'user'", "", ""},
		{"openai, not a data URL", "/v1/chat/completions", openai("user", "https://example.com/a.gif"), "only base64 data URLs", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Text: "ok"})
			resp := post(t, context.Background(), s.URL()+tc.path, tc.body)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if tc.refusal != "" {
				if resp.StatusCode != 400 || !strings.Contains(string(b), tc.refusal) || s.Pending() != 1 {
					t.Errorf("got %d %s (%d turns left); want 400 saying %q, the script untouched", resp.StatusCode, b, s.Pending(), tc.refusal)
				}
				return
			}
			if resp.StatusCode != 200 {
				t.Fatalf("got %d %s; want 200", resp.StatusCode, b)
			}
			imgs := s.Requests()[0].Images()
			if len(imgs) != 1 || imgs[0].Where != tc.where || imgs[0].ToolUseID != tc.toolUseID || imgs[0].MIMEType != "image/gif" || string(imgs[0].Data) != gif1x1 {
				t.Errorf("images %+v; want the GIF in %s after %s", imgs, tc.where, tc.toolUseID)
			}
		})
	}
}
