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

// TestChatSinkShowsACallsProgress: a running call's progress (a server's
// notifications/progress, or the status of the task it runs the call as)
// is a line under the call, escaped like everything a server says.
func TestChatSinkShowsACallsProgress(t *testing.T) {
	var out bytes.Buffer
	s := &chatSink{out: &out, st: newStyles(false), width: func() int { return 0 }}
	call := wire.Event{Type: wire.EventToolCall, ToolCallID: "c1", Title: "v2 · long", Arguments: []byte(`{}`), Status: wire.StatusRunning}
	s.Event(call)
	call.Message = "step 1 of 3"
	s.Event(call)
	call.Message = "step 2\x1b[2J"
	s.Event(call)
	s.Event(wire.Event{Type: wire.EventToolResult, ToolCallID: "c1", Status: wire.StatusCompleted, Output: "finished 3 steps"})
	s.finish()
	got := out.String()
	if !strings.Contains(got, "→ v2 · long {}\n  … step 1 of 3\n  … step 2\\x1b[2J\n  ✓ completed: finished 3 steps\n") || strings.Contains(got, "\x1b[2J") {
		t.Errorf("output:\n%q", got)
	}
}
