package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll reads every frame r gives until it fails.
func readAll(fr frameReader) ([]string, error) {
	var out []string
	for {
		b, err := fr.next()
		if err != nil {
			return out, err
		}
		out = append(out, string(b))
	}
}

// A valid stream in every shape editors give it is read whole, and the
// torn-frame check never fires on it: two frames in one write, a frame a
// byte at a time, Content-Type before Content-Length, header names in any
// case, no space after the colon, an unknown header, blank lines between
// frames, and a body whose string holds a header, cut right after it.
func TestHeadersReadAValidStreamInAnyShape(t *testing.T) {
	frame := func(header, body string) string { return fmt.Sprintf(header, len(body)) + body }
	a := `{"jsonrpc":"2.0","id":1,"method":"agent/tasks","params":{}}`
	b := `{"jsonrpc":"2.0","id":2,"method":"agent/tasks","params":{"s":"Content-Length: 3\r\n\r\n{}"}}`
	c := `{"jsonrpc":"2.0","id":3,"method":"agent/tasks","params":{"s":"}]\"Content-Length: 7\r\n\r\n"}}`
	d := `{"jsonrpc":"2.0","id":4,"params":{"x":"}]\"}Content-Length: 9\r\n\r\n{}"}}` + "\r\n  " // whitespace the length counts
	tests := []struct {
		name   string
		stream string
		want   []string
		reader func(io.Reader) io.Reader
	}{
		{"two frames in one write", frame("Content-Length: %d\r\n\r\n", a) + frame("Content-Length: %d\r\n\r\n", b), []string{a, b}, nil},
		{"a frame a byte at a time", frame("Content-Length: %d\r\n\r\n", b), []string{b}, iotest.OneByteReader},
		{"a body cut right after the header in its string", frame("CONTENT-LENGTH: %d\r\n\r\n", c), []string{c}, iotest.HalfReader},
		{"Content-Type first", frame("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n", a), []string{a}, nil},
		{"no space after the colon and an unknown header", frame("content-length:%d\r\nX-Unknown: 1\r\n\r\n", a), []string{a}, nil},
		{"blank lines between frames", "\r\n" + frame("Content-Length: %d\r\n\r\n", a) + "\r\n\r\n" + frame("Content-Length: %d\r\n\r\n", b), []string{a, b}, nil},
		{"a header inside a string and whitespace after the JSON", frame("Content-Length: %d\r\n\r\n", d), []string{d}, iotest.OneByteReader},
		{"bare newlines", frame("Content-Length: %d\n\n", a), []string{a}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r io.Reader = strings.NewReader(tt.stream)
			if tt.reader != nil {
				r = tt.reader(r)
			}
			got, err := readAll(headers{}.reader(r))
			if err != io.EOF {
				t.Errorf("read ended with %v, want io.EOF", err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("frames = %q, want %q", got, tt.want)
			}
		})
	}
}

// A frame that cannot be delimited leaves no next message to read: the
// reader fails with a *FramingError that says why and quotes what it read
// (the front says it on stderr and exits 1, as docs/protocol.md says).
func TestHeadersRefuseAFrameThatCannotBeDelimited(t *testing.T) {
	first := `{"jsonrpc":"2.0","id":3,"method":"agent/tasks","params":{}}`
	tests := []struct {
		name, bytes string
		want        []string
	}{
		{"a negative Content-Length", "Content-Length: -5\r\n\r\n{}", []string{`Content-Length "-5" is not a byte count`, `read "Content-Length: -5\r\n"`}},
		{"a non-numeric Content-Length", "Content-Length: lots\r\n\r\n{}", []string{`Content-Length "lots" is not a byte count`}},
		{"no Content-Length", "Content-Type: application/json\r\n\r\n{}", []string{"no Content-Length header"}},
		{"two Content-Lengths that differ", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", []string{"two Content-Length headers, 2 and 3"}},
		{"a header line without a colon", "hello agentls\r\n\r\n", []string{`header line "hello agentls" has no colon`}},
		{"a JSON body without any header", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"agent/tasks\"}\r\n\r\n", []string{"no Content-Length header", `{\"jsonrpc\":\"2.0\",\"id\":2`}},
		{"a Content-Length of 2147483647", "Content-Length: 2147483647\r\n\r\n{}", []string{"Content-Length 2147483647 is over the limit of 67108864 bytes"}},
		{"a header line that never ends", "Content-Length: 2\r\nX-Pad: " + strings.Repeat("a", 5000), []string{"a header line longer than 4096 bytes"}},
		{"a header block over 8 KiB", "Content-Length: 2\r\n" + strings.Repeat("X-Pad: "+strings.Repeat("a", 1000)+"\r\n", 9), []string{"a header longer than 8192 bytes"}},
		{"the input ending inside the header", "Content-Length: 2\r\n", []string{"the input ended inside the header"}},
		{"the input ending inside the body", "Content-Length: 50\r\n\r\n{\"jsonrpc\":", []string{"the input ended after 11 of 50 body bytes"}},
		{"a Content-Length larger than its body", fmt.Sprintf("Content-Length: %d\r\n\r\n%sContent-Length: 2\r\n\r\n{}", len(first)+40, first),
			[]string{fmt.Sprintf("Content-Length %d is larger than its body: the JSON message ended after %d bytes and \"Content-Length: ", len(first)+40, len(first))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAll(headers{}.reader(strings.NewReader(tt.bytes)))
			var fe *FramingError
			if !errors.As(err, &fe) {
				t.Fatalf("read %q then %v, want a *FramingError", got, err)
			}
			for _, w := range append(tt.want, "agentls: unreadable LSP message") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

// A Content-Length over the cap is refused before its body is allocated:
// 2147483647 would reserve 3.8 GB.
func TestHeadersRefuseAnOversizeFrameBeforeAllocatingIt(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := headers{}.reader(strings.NewReader("Content-Length: 2147483647\r\n\r\n{}")).next()
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("accepted")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("refusing the frame allocated %d bytes, want it refused before allocating its body", grew)
	}
}

// What the connection writes is what the reader reads back.
func TestHeadersFrameIsReadBack(t *testing.T) {
	var buf bytes.Buffer
	bodies := []string{`{}`, `{"jsonrpc":"2.0","method":"m","params":{"s":"Content-Length: 1\r\n\r\n"}}`, `[]`}
	for _, b := range bodies {
		buf.Write(headers{}.frame([]byte(b)))
	}
	got, err := readAll(headers{}.reader(&buf))
	if err != io.EOF || fmt.Sprint(got) != fmt.Sprint(bodies) {
		t.Errorf("read back %q (%v), want %q", got, err, bodies)
	}
}

// FuzzValueEndNeverTearsAValidStream: a valid message body, whatever its
// strings hold (braces, quotes, escapes, "Content-Length:", any Unicode)
// and however it is split across reads, is never taken for a torn frame;
// the same body followed by the next frame's header always is, at the
// header.
func FuzzValueEndNeverTearsAValidStream(f *testing.F) {
	f.Add("hello", "agent/run", uint64(7), uint8(0))
	f.Add(`"}{][\"\\`, "x", uint64(1), uint8(3))
	f.Add("Content-Length: 10\r\n\r\n{}", "textDocument/didChange", uint64(0xdeadbeef), uint8(1))
	f.Add("😀 漢字 \u2028 \x00", "m", uint64(3), uint8(2))
	f.Fuzz(func(t *testing.T, text, method string, splits uint64, pad uint8) {
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method,
			"params": map[string]any{"text": text, "nested": []any{text, map[string]any{text: []any{}}}}})
		if err != nil {
			t.Skip(err)
		}
		body = append(body, strings.Repeat("\r\n", int(pad%4))...) // whitespace the length may count
		feedSplit := func(b []byte) (int, valueEnd) {
			var v valueEnd
			s := splits
			for got := 0; got < len(b); {
				n := 1 + int(s%17)
				s = s/17 + 1
				if got+n > len(b) {
					n = len(b) - got
				}
				if at := v.feed(b[got:got+n], got); at >= 0 {
					return at, v
				}
				got += n
			}
			return -1, v
		}
		if at, v := feedSplit(body); at >= 0 || !v.done || v.end != len(bytes.TrimRight(body, "\r\n")) {
			t.Fatalf("valid body %q: torn at %d (done %v, end %d)", body, at, v.done, v.end)
		}
		torn := append(append([]byte(nil), body...), "Content-Length: 2\r\n\r\n{}"...)
		if at, _ := feedSplit(torn); at != len(body) {
			t.Fatalf("body %q followed by a header: torn at %d, want %d", body, at, len(body))
		}
	})
}
