package jsonrpc

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// Every message of a line is its own: a peer that left out a newline put
// two on one line, and each is answered; what follows them that is not
// JSON is one more message, which gets one parse error. Before, such a
// line got one parse error with id null and neither request was answered,
// so the editor waited forever for its initialize.
func TestLinesSplitEveryMessage(t *testing.T) {
	a, b := `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, `{"jsonrpc":"2.0","id":2,"method":"x","params":{"s":"}\n{"}}`
	tests := []struct {
		name, stream string
		want         []string
	}{
		{"one message per line", a + "\n" + b + "\n", []string{a, b}},
		{"two messages on one line", a + b + "\n", []string{a, b}},
		{"two messages with a space between", a + " " + b + "\n", []string{a, b}},
		{"garbage after a message", a + " and then garbage\n" + b + "\n", []string{a, " and then garbage", b}},
		{"a torn message", `{"jsonrpc":` + "\n" + b + "\n", []string{`{"jsonrpc":`, b}},
		{"blank and whitespace lines", "\n  \n" + a + "\n\t\n", []string{a}},
		{"CRLF line ends", a + "\r\n" + b + "\r\n", []string{a, b}},
		{"a last line without its newline", a + "\n" + b, []string{a, b}},
		{"a scalar", "42\n", []string{"42"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAll(lines{}.reader(iotest.HalfReader(strings.NewReader(tt.stream))))
			if err != io.EOF {
				t.Errorf("read ended with %v, want io.EOF", err)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Errorf("messages = %q, want %q", got, tt.want)
			}
		})
	}
}

// A line over the cap ends the connection with a *FramingError: a runaway
// peer must not grow memory without bound.
func TestLinesRefuseALineOverTheLimit(t *testing.T) {
	r := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","method":"m"}`+"\n"), &bytesOf{c: 'a', n: MaxMessageBytes + 1})
	got, err := readAll(lines{}.reader(r))
	var fe *FramingError
	if !errors.As(err, &fe) || len(got) != 1 {
		t.Fatalf("read %d messages then %v, want one message then a *FramingError", len(got), err)
	}
	if want := "agentls: unreadable ACP message (a message longer than 67108864 bytes)"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to contain %q", err, want)
	}
}

// bytesOf reads n bytes c, then ends.
type bytesOf struct {
	c byte
	n int
}

func (b *bytesOf) Read(p []byte) (int, error) {
	if b.n == 0 {
		return 0, io.EOF
	}
	n := min(len(p), b.n)
	for i := range p[:n] {
		p[i] = b.c
	}
	b.n -= n
	return n, nil
}
