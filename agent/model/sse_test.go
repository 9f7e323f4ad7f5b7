package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestSSEReaderFollowsTheStandard(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []sseEvent
	}{
		{"event and data", "event: a\ndata: x\n\n", []sseEvent{{"a", "x"}}},
		{"several data lines join with newline", "data: one\ndata: two\n\n", []sseEvent{{"", "one\ntwo"}}},
		{"comments are ignored", ": keep-alive\ndata: x\n: another\n\n", []sseEvent{{"", "x"}}},
		{"CRLF line ends", "event: a\r\ndata: x\r\n\r\n", []sseEvent{{"a", "x"}}},
		{"CR line ends", "event: a\rdata: x\r\r", []sseEvent{{"a", "x"}}},
		{"only one space after the colon is dropped", "data:  x\n\ndata:y\n\n", []sseEvent{{"", " x"}, {"", "y"}}},
		{"an event without data is not dispatched", "event: a\n\ndata: x\n\n", []sseEvent{{"", "x"}}},
		{"the event type does not leak into the next event", "event: a\ndata: 1\n\ndata: 2\n\n", []sseEvent{{"a", "1"}, {"", "2"}}},
		{"unknown fields and id/retry are ignored", "id: 7\nretry: 100\nfoo: bar\ndata: x\n\n", []sseEvent{{"", "x"}}},
		{"an event cut off before its blank line is dropped", "data: x\n\ndata: partial\n", []sseEvent{{"", "x"}}},
		{"a field without colon has an empty value", "data\n\n", []sseEvent{{"", ""}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newSSEReader(strings.NewReader(c.in))
			var got []sseEvent
			for {
				ev, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ev)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestSSEReaderRefusesEndlessLines(t *testing.T) {
	r := newSSEReader(io.MultiReader(strings.NewReader("data: "), endless{}))
	_, err := r.Next()
	if err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("err = %v, want a line-length error", err)
	}
}

// endless is a reader that never ends a line.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// The scanners' first buffers go back to a pool when a stream is done
// and serve the next one: an event must own its bytes, or the next stream
// would rewrite it. Read in turn, each stream's events stay what it said,
// a line longer than the pooled buffer included.
func TestSSEEventsOutliveThePooledBuffers(t *testing.T) {
	var kept, want []sseEvent
	for i := 0; i < 20; i++ {
		ev := sseEvent{Event: fmt.Sprintf("e%d", i), Data: fmt.Sprintf("stream %d %s", i, strings.Repeat("x", i))}
		if i == 7 { // longer than the 16 KiB buffer: the scanner grows its own
			ev.Data = strings.Repeat("y", 40<<10)
		}
		r := newSSEReader(strings.NewReader("event: " + ev.Event + "\ndata: " + ev.Data + "\n\n"))
		got, err := r.Next()
		r.release()
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		kept, want = append(kept, got), append(want, ev)
	}
	for i := range kept {
		if kept[i] != want[i] {
			t.Errorf("event %d changed after later streams: got %.80q, want %.80q", i, kept[i], want[i])
		}
	}
}

// lineEnd finds the first CR or LF as bytes.IndexAny does.
func TestLineEndIsIndexAny(t *testing.T) {
	for _, in := range []string{"", "abc", "\n", "\r", "\r\n", "a\rb\nc", "a\nb\rc", "data: x\r\n\r\n", "data: x\n\n", strings.Repeat("x", 5000) + "\r", "\n\r"} {
		if got, want := lineEnd([]byte(in)), bytes.IndexAny([]byte(in), "\r\n"); got != want {
			t.Errorf("lineEnd(%.40q) = %d, want %d", in, got, want)
		}
	}
}

func FuzzLineEnd(f *testing.F) {
	f.Add([]byte("data: x\r\n\r\n"))
	f.Add([]byte("a\rb\nc"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if got, want := lineEnd(in), bytes.IndexAny(in, "\r\n"); got != want {
			t.Errorf("lineEnd(%q) = %d, want %d", in, got, want)
		}
	})
}
