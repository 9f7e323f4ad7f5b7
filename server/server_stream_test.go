package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// A well-framed message that is not valid JSON-RPC gets the error reply
// JSON-RPC 2.0 requires, and agentls goes on: the next request is answered.
// Before, each of these ended agentls silently with exit code 0.
func TestBadMessagesGetTheSpecsErrorAndTheConnectionGoesOn(t *testing.T) {
	tests := []struct {
		name, body string
		code       int
		id         string // the id the error reply carries
	}{
		{"a torn JSON body", `{"jsonrpc":`, -32700, "null"},
		{"a body that is not JSON", `hello, agentls`, -32700, "null"},
		{"a batch array", `[{"jsonrpc":"2.0","id":5,"method":"agent/tasks"}]`, -32600, "null"},
		{"a JSON string, not an object", `"agent/tasks"`, -32600, "null"},
		{"a numeric method", `{"jsonrpc":"2.0","id":5,"method":42}`, -32600, "5"},
		{"a numeric method without id", `{"jsonrpc":"2.0","method":1,"params":{}}`, -32600, "null"},
		{"an id of 1.5", `{"jsonrpc":"2.0","id":1.5,"method":"agent/tasks"}`, -32600, "null"},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"agent/tasks"}`, -32600, "null"},
		{"an id beyond 32 bits", `{"jsonrpc":"2.0","id":4294967296,"method":"agent/tasks"}`, -32600, "null"},
		{"an empty method with an id", `{"jsonrpc":"2.0","id":6,"method":""}`, -32600, "6"},
		{"an empty method with a string id", `{"jsonrpc":"2.0","id":"r6","method":"","params":{}}`, -32600, `"r6"`},
		{"no method and no result", `{"jsonrpc":"2.0","id":7}`, -32600, "7"},
		{"a wrong jsonrpc version", `{"jsonrpc":"1.0","id":8,"method":"agent/tasks"}`, -32600, "8"},
		{"string params", `{"jsonrpc":"2.0","id":9,"method":"agent/tasks","params":"x"}`, -32600, "9"},
		{"an empty body", ``, -32700, "null"},
		{"a stray closing brace after the object", `{"jsonrpc":"2.0","id":5,"method":"agent/tasks"}}`, -32700, "null"},
		{"two objects in one frame", `{"jsonrpc":"2.0","method":"initialized"} {"jsonrpc":"2.0","id":5,"method":"agent/tasks"}`, -32700, "null"},
		{"an array closed by a brace, then more", `[1}, "Content-Length: 2"`, -32700, "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, "")
			c := startRaw(t, e)
			c.initialize(e.root)
			c.send(tt.body)
			r := c.next("the error reply", func(f rawFrame) bool { return f.Method == "" && f.Error != nil })
			if r.Error.Code != tt.code || string(r.ID) != tt.id {
				t.Errorf("reply = code %d id %s (%s), want code %d id %s", r.Error.Code, r.ID, r.Error.Message, tt.code, tt.id)
			}
			if !strings.HasPrefix(r.Error.Message, "agentls: ") {
				t.Errorf("error message %q does not say who answered", r.Error.Message)
			}
			c.send(`{"jsonrpc":"2.0","id":100,"method":"agent/tasks","params":{}}`)
			if next := c.reply("100"); next.Error != nil || !strings.Contains(string(next.Result), `"tasks"`) {
				t.Errorf("the next request got %s %+v, want its result", next.Result, next.Error)
			}
		})
	}
}

// A frame that cannot be delimited leaves no next message to read: agentls
// exits non-zero and says on stderr why, quoting what it read. A
// Content-Length over the cap is refused before anything is allocated.
func TestUnreadableFramesExitNonZeroSayingWhy(t *testing.T) {
	tests := []struct {
		name, bytes string
		want        []string // on stderr
	}{
		{"a negative Content-Length", "Content-Length: -5\r\n\r\n{}", []string{"Content-Length \"-5\" is not a byte count", `read "Content-Length: -5\r\n"`}},
		{"a non-numeric Content-Length", "Content-Length: lots\r\n\r\n{}", []string{"Content-Length \"lots\" is not a byte count"}},
		{"no Content-Length", "Content-Type: application/json\r\n\r\n{}", []string{"no Content-Length header"}},
		{"a header line without a colon", "hello agentls\r\n\r\n", []string{`header line "hello agentls" has no colon`}},
		{"a JSON body without any header", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"agent/tasks\"}\r\n\r\n", []string{"no Content-Length header", `{\"jsonrpc\":\"2.0\",\"id\":2`}},
		{"a Content-Length of 2147483647", "Content-Length: 2147483647\r\n\r\n{}", []string{"Content-Length 2147483647 is over the limit of 67108864 bytes"}},
		{"a header that never ends", "Content-Length: 2\r\nX-Pad: " + strings.Repeat("a", 5000), []string{"a header line longer than 4096 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, "")
			c := startRaw(t, e)
			c.initialize(e.root)
			c.write(tt.bytes)
			if code := c.waitExit(); code == 0 {
				t.Errorf("exit code 0 after %q, want non-zero", tt.bytes)
			}
			stderr := c.stderrText()
			for _, w := range append(tt.want, "unreadable LSP message") {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr = %q, want it to contain %q", stderr, w)
				}
			}
		})
	}
}

// The input ending in the middle of a frame is a framing error too; at a
// frame boundary it is the editor closing agentls's stdin (exit code 0,
// which the vscode owner's rules keep).
func TestInputEndingMidFrameExitsNonZero(t *testing.T) {
	e := newEnv(t, "")
	c := startRaw(t, e)
	c.initialize(e.root)
	c.write("Content-Length: 50\r\n\r\n{\"jsonrpc\":")
	c.stdin.Close()
	if code := c.waitExit(); code == 0 {
		t.Errorf("exit code 0 after a torn frame, want non-zero")
	}
	if s := c.stderrText(); !strings.Contains(s, "the input ended after 11 of 50 body bytes") {
		t.Errorf("stderr = %q, want the torn frame explained", s)
	}
}

// A Content-Length larger than its body: the body's JSON ends and the next
// message's header follows. agentls exits 1 saying so, as docs/protocol.md
// says of a torn frame. Before, it swallowed the next message and waited
// forever for the missing bytes, alive but deaf.
func TestAContentLengthLargerThanItsBodyExitsNonZero(t *testing.T) {
	e := newEnv(t, "")
	c := startRaw(t, e)
	c.initialize(e.root)
	first := `{"jsonrpc":"2.0","id":3,"method":"agent/tasks","params":{}}`
	c.write(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(first)+40, first))
	c.send(`{"jsonrpc":"2.0","id":4,"method":"agent/tasks","params":{}}`)
	if code := c.waitExit(); code != 1 {
		t.Errorf("exit code %d after a frame longer than its body, want 1", code)
	}
	want := fmt.Sprintf("Content-Length %d is larger than its body: the JSON message ended after %d bytes and \"Content-Length: ", len(first)+40, len(first))
	if s := c.stderrText(); !strings.Contains(s, want) || !strings.Contains(s, "unreadable LSP message") {
		t.Errorf("stderr = %q, want it to contain %q", s, want)
	}
}

// What looks like a header inside a body's strings, or whitespace after its
// JSON that the Content-Length counts, is no torn frame.
func TestAHeaderInsideABodysStringIsNoTornFrame(t *testing.T) {
	e := newEnv(t, "")
	c := startRaw(t, e)
	c.initialize(e.root)
	c.send(`{"jsonrpc":"2.0","id":5,"method":"agent/tasks","params":{"x":"}]\"}Content-Length: 9\r\n\r\n{}"}}` + "\r\n  ")
	if r := c.reply("5"); r.Error != nil || !strings.Contains(string(r.Result), `"tasks"`) {
		t.Errorf("agent/tasks answered %s %+v, want its result", r.Result, r.Error)
	}
	c.send(`{"jsonrpc":"2.0","id":6,"method":"agent/tasks","params":{}}`)
	if r := c.reply("6"); r.Error != nil {
		t.Errorf("the next request: %+v", r.Error)
	}
}

// Two requests in flight with the same id: the second finishing must not
// take the first one's cancel with it. $/cancelRequest for the id still
// cancels the first (an agent/run waiting on an approval).
func TestCancelRequestReachesARequestWhoseIDWasReused(t *testing.T) {
	e := newEnv(t, "")
	e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "run_command", Input: `{"command":"echo never"}`}}})
	c := startRaw(t, e)
	c.initialize(e.root)
	c.send(`{"jsonrpc":"2.0","id":7,"method":"agent/run","params":{"prompt":"run it"}}`)
	c.next("the approval request", func(f rawFrame) bool { return f.Method == "agent/requestApproval" })
	c.send(`{"jsonrpc":"2.0","id":7,"method":"agent/tasks","params":{}}`)
	if r := c.reply("7"); !strings.Contains(string(r.Result), `"tasks"`) {
		t.Fatalf("agent/tasks with the reused id answered %s %+v", r.Result, r.Error)
	}
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}`)
	r := c.reply("7")
	if r.Error != nil || !strings.Contains(string(r.Result), `"stopReason":"cancelled"`) {
		t.Errorf("agent/run answered %s %+v, want stopReason cancelled", r.Result, r.Error)
	}
	c.send(`{"jsonrpc":"2.0","id":8,"method":"agent/tasks","params":{}}`)
	if r := c.reply("8"); r.Error != nil {
		t.Errorf("next request: %+v", r.Error)
	}
}

// A valid stream in every shape editors give it reaches the real binary
// whole, and the torn-frame check never fires on it: two frames in one
// write, a frame written a byte at a time, Content-Type before
// Content-Length, header names in any case, no space after the colon, an
// unknown header, and a body whose string holds a header and is cut right
// after it. Every request is answered and agentls keeps running.
func TestAValidStreamInAnyShapeIsRead(t *testing.T) {
	e := newEnv(t, "")
	c := startRaw(t, e)
	c.initialize(e.root)
	req := func(id int, extra string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"agent/tasks","params":{%s}}`, id, extra)
	}
	frame := func(header, body string) string { return fmt.Sprintf(header, len(body)) + body }
	c.write(frame("Content-Length: %d\r\n\r\n", req(10, "")) + frame("Content-Length: %d\r\n\r\n", req(11, "")))
	for _, b := range []byte(frame("Content-Length: %d\r\n\r\n", req(12, `"s":"Content-Length: 3\r\n\r\n{}"`))) {
		c.write(string(b))
	}
	c.write(frame("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n", req(13, "")))
	c.write(frame("content-length:%d\r\nX-Unknown: 1\r\n\r\n", req(14, "")))
	body := req(15, `"s":"}]\"Content-Length: 7\r\n\r\n"`)
	cut := strings.Index(body, `Content-Length: 7`) + len(`Content-Length: 7`)
	c.write(fmt.Sprintf("CONTENT-LENGTH: %d\r\n\r\n", len(body)) + body[:cut])
	c.write(body[cut:])
	// Each request runs on its own goroutine, so the answers come in any order.
	answered := map[string]bool{}
	for len(answered) < 6 {
		r := c.next("the answers to ids 10 to 15", func(f rawFrame) bool { return f.Method == "" && len(f.ID) > 0 && !answered[string(f.ID)] })
		if r.Error != nil || !strings.Contains(string(r.Result), `"tasks"`) {
			t.Errorf("request %s answered %s %+v, want its result", r.ID, r.Result, r.Error)
		}
		answered[string(r.ID)] = true
	}
	for id := 10; id <= 15; id++ {
		if !answered[fmt.Sprint(id)] {
			t.Errorf("request %d was not answered (answers: %v)", id, answered)
		}
	}
}
