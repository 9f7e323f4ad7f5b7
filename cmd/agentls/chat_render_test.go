package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentls/agentls/wire"
)

// TestChatSinkRendersMarkdownAndEscapesWhatTheModelWrote: the answer is
// drawn as Markdown for a terminal, however the deltas cut it, and an
// escape sequence in it is shown escaped, never obeyed.
func TestChatSinkRendersMarkdownAndEscapesWhatTheModelWrote(t *testing.T) {
	var out bytes.Buffer
	s := &chatSink{out: &out, st: newStyles(true), width: func() int { return 0 }}
	for _, d := range []string{"# Ti", "tle\nSay **bo", "ld** and `co", "de`\n- one\n```go\nx := 1\n```\nbad \x1b[2Jclear\n", "tail"} {
		s.Event(wire.Event{Type: wire.EventText, Delta: d})
	}
	s.finish()
	got := out.String()
	st := newStyles(true)
	for _, want := range []string{
		"\r\x1b[K" + st.bold + "Title" + st.reset + "\n",
		"Say " + st.bold + "bold" + st.reset + " and " + st.code + "code" + st.reset + "\n",
		"• one\n",
		st.code + "  x := 1" + st.reset + "\n",
		`bad \x1b[2Jclear`,
		"tail\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%q", want, got)
		}
	}
	if strings.Contains(got, "\x1b[2J") {
		t.Errorf("the model's escape sequence reached the terminal: %q", got)
	}
}

func TestUsageLine(t *testing.T) {
	u := wire.Usage{InputTokens: 12345, OutputTokens: 67, CacheReadTokens: 10000, ContextTokens: 20000, ContextWindow: 200000}
	got := chatUsageLine(u, wire.Usage{InputTokens: 22345, OutputTokens: 100}, "$0.0123", "$0.05")
	want := "12,345 in (81% from cache) · 67 out · context 10% of 200,000 · $0.0123 · session 22,345 in, 100 out, $0.05"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
