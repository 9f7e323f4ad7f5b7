package main

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
)

// TestReadLineEditsAndBrowsesTheHistory types keys (as a terminal sends
// them) into the line editor through a pipe.
func TestReadLineEditsAndBrowsesTheHistory(t *testing.T) {
	hist := &history{lines: []string{"first", "second"}}
	for _, tc := range []struct {
		name, keys, want string
		err              error
	}{
		{"plain line", "hello\r", "hello", nil},
		{"backspace", "hepp\x7f\x7fllo\r", "hello", nil},
		{"left arrow inserts in the middle", "hllo\x1b[D\x1b[D\x1b[De\r", "hello", nil},
		{"Home and End", "ello\x1b[Hh\x1b[F!\r", "hello!", nil},
		{"up brings back the last line", "\x1b[A\r", "second", nil},
		{"up twice the one before, down again the last", "\x1b[A\x1b[A\x1b[B\r", "second", nil},
		{"down past the newest is the line being typed", "draft\x1b[A\x1b[B\r", "draft", nil},
		{"an edited history line", "\x1b[A\x1b[A!\r", "first!", nil},
		{"Ctrl-U clears", "junk\x15ok\r", "ok", nil},
		{"Ctrl-W deletes a word", "one two\x17three\r", "one three", nil},
		{"UTF-8 across reads", "caf\xc3\xa9\x1b[D\x7f\r", "caé", nil},
		{"Ctrl-C", "abc\x03", "abc", errInterrupt},
		{"Ctrl-D on an empty line", "\x04", "", io.EOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			go func() { io.WriteString(w, tc.keys); w.Close() }()
			k := newKeyboard(r, io.Discard)
			got, err := k.readLine(context.Background(), "> ", hist)
			if got != tc.want || !errors.Is(err, tc.err) && err != tc.err {
				t.Errorf("keys %q: %q, %v; want %q, %v", tc.keys, got, err, tc.want, tc.err)
			}
		})
	}
}
