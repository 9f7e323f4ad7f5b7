package main

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// Terminal styles of the chat (SGR), empty without color.
type styles struct{ bold, dim, code, red, green, yellow, reset string }

func newStyles(color bool) styles {
	if !color {
		return styles{}
	}
	return styles{bold: "\x1b[1m", dim: "\x1b[2m", code: "\x1b[36m", red: "\x1b[31m", green: "\x1b[32m", yellow: "\x1b[33m", reset: "\x1b[0m"}
}

// chatSink shows a task's events in the chat: the answer as Markdown for
// a terminal (headings and **bold** bold, `code` and fenced blocks in
// their own color, bullets as •), each tool call as a line with its
// result under it, reasoning dim and marked, status lines. Every string
// the model or a server wrote goes through trust.VisibleText first: an
// escape sequence in an answer is shown, never obeyed.
type chatSink struct {
	out   io.Writer
	st    styles
	width func() int // the terminal's columns, 0 when unknown

	mu        sync.Mutex
	line      string // the answer's current line, not yet ended
	printed   int    // runes of line already printed raw
	inCode    bool   // inside a ``` block
	reasoning bool   // in the middle of a reasoning line
	shown     map[string]string
}

func (s *chatSink) Event(e wire.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.Type != wire.EventReasoning && s.reasoning {
		io.WriteString(s.out, s.st.reset+"\n")
		s.reasoning = false
	}
	switch e.Type {
	case wire.EventText:
		s.text(e.Delta)
	case wire.EventReasoning:
		if e.Delta == "" {
			return
		}
		s.endLine()
		if !s.reasoning {
			io.WriteString(s.out, s.st.dim+reasoningMark)
			s.reasoning = true
		}
		io.WriteString(s.out, s.st.dim+strings.ReplaceAll(trust.VisibleText(e.Delta), "\n", "\n"+reasoningMark))
	case wire.EventToolCall:
		if _, seen := s.shown[e.ToolCallID]; seen {
			if e.Status == wire.StatusRunning && e.Message != "" {
				// Progress: a server's notifications/progress, or the
				// status of the task it runs the call as.
				s.endLine()
				fmt.Fprintf(s.out, "  %s… %s%s\n", s.st.dim, oneLine(e.Message), s.st.reset)
			}
			return
		}
		if s.shown == nil {
			s.shown = map[string]string{}
		}
		s.shown[e.ToolCallID] = e.Title
		s.endLine()
		args := string(e.Arguments)
		if r := []rune(args); len(r) > 160 {
			args = string(r[:160]) + "…"
		}
		fmt.Fprintf(s.out, "%s→ %s%s %s%s\n", s.st.code, oneLine(e.Title), s.st.dim, oneLine(args), s.st.reset)
	case wire.EventToolResult:
		delete(s.shown, e.ToolCallID)
		s.endLine()
		mark, color := "✓", s.st.green
		switch e.Status {
		case wire.StatusFailed:
			mark, color = "✗", s.st.red
		case wire.StatusDenied, wire.StatusCancelled:
			mark, color = "⊘", s.st.yellow
		}
		lines := strings.Split(strings.TrimRight(e.Output, "\n"), "\n")
		fmt.Fprintf(s.out, "  %s%s %s%s", color, mark, e.Status, s.st.reset)
		const shownLines = 4
		for i, l := range lines {
			if i == shownLines {
				fmt.Fprintf(s.out, "\n    %s… %d more line(s)%s", s.st.dim, len(lines)-shownLines, s.st.reset)
				break
			}
			sep := "\n    "
			if i == 0 {
				sep = ": "
			}
			fmt.Fprintf(s.out, "%s%s%s%s", sep, s.st.dim, oneLine(l), s.st.reset)
		}
		io.WriteString(s.out, "\n")
	case wire.EventStatus:
		s.endLine()
		fmt.Fprintf(s.out, "%sagentls: %s%s\n", s.st.yellow, oneLine(e.Message), s.st.reset)
	}
}

// text streams the answer: what arrives is printed at once, and each
// line is drawn again as Markdown when it ends (when it still fits on
// one row of the terminal; a wrapped line stays as it streamed).
func (s *chatSink) text(delta string) {
	for delta != "" {
		chunk, rest, ended := strings.Cut(delta, "\n")
		delta = rest
		s.line += chunk
		if !ended {
			raw := []rune(trust.VisibleText(s.line))
			io.WriteString(s.out, string(raw[min(s.printed, len(raw)):]))
			s.printed = len(raw)
			return
		}
		s.flushLine()
	}
}

// flushLine draws the current line as Markdown and ends it.
func (s *chatSink) flushLine() {
	shown := trust.VisibleText(s.line)
	if s.printed > 0 {
		if w := s.width(); w > 0 && len([]rune(shown)) >= w {
			io.WriteString(s.out, string([]rune(shown)[min(s.printed, len([]rune(shown))):])+"\n")
			s.line, s.printed = "", 0
			return
		}
		io.WriteString(s.out, "\r\x1b[K")
	}
	io.WriteString(s.out, s.markdown(shown)+"\n")
	s.line, s.printed = "", 0
}

// endLine ends a line of the answer before anything else is shown.
func (s *chatSink) endLine() {
	if s.line != "" || s.printed > 0 {
		s.flushLine()
	}
}

// finish ends the answer's last line and any reasoning.
func (s *chatSink) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reasoning {
		io.WriteString(s.out, s.st.reset+"\n")
		s.reasoning = false
	}
	s.endLine()
	s.inCode = false
}

// markdown is one line of the answer (escaped already) for the terminal.
func (s *chatSink) markdown(line string) string {
	trimmed := strings.TrimSpace(line)
	if strings.HasPrefix(trimmed, "```") {
		s.inCode = !s.inCode
		return s.st.dim + line + s.st.reset
	}
	if s.inCode {
		return s.st.code + "  " + line + s.st.reset
	}
	if strings.HasPrefix(trimmed, "#") {
		return s.st.bold + strings.TrimLeft(trimmed, "# ") + s.st.reset
	}
	indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
	for _, bullet := range []string{"- ", "* ", "+ "} {
		if strings.HasPrefix(trimmed, bullet) {
			return indent + "• " + s.inline(trimmed[2:])
		}
	}
	return s.inline(line)
}

// inline styles **bold** and `code` spans of a line.
func (s *chatSink) inline(line string) string {
	if s.st.reset == "" {
		return line
	}
	var b strings.Builder
	for line != "" {
		i := strings.IndexAny(line, "*`")
		if i < 0 {
			b.WriteString(line)
			break
		}
		b.WriteString(line[:i])
		line = line[i:]
		open, style := "`", s.st.code
		if strings.HasPrefix(line, "**") {
			open, style = "**", s.st.bold
		} else if line[0] == '*' {
			b.WriteString("*")
			line = line[1:]
			continue
		}
		end := strings.Index(line[len(open):], open)
		if end < 0 {
			b.WriteString(line)
			break
		}
		b.WriteString(style + line[len(open):len(open)+end] + s.st.reset)
		line = line[len(open)+end+len(open):]
	}
	return b.String()
}

// usageLine is the tokens of a turn, the share read from the provider's
// cache, how full the window is and, when the model has a price, the cost.
func usageLine(turn wire.Usage, cost string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s in", agent.Thousands(turn.InputTokens))
	if turn.InputTokens > 0 && turn.CacheReadTokens > 0 {
		fmt.Fprintf(&b, " (%d%% from cache)", turn.CacheReadTokens*100/turn.InputTokens)
	}
	fmt.Fprintf(&b, " · %s out", agent.Thousands(turn.OutputTokens))
	if turn.ContextWindow > 0 {
		fmt.Fprintf(&b, " · context %d%% of %s", turn.ContextTokens*100/turn.ContextWindow, agent.Thousands(turn.ContextWindow))
	}
	if cost != "" {
		b.WriteString(" · " + cost)
	}
	return b.String()
}

// chatUsageLine is usageLine of a turn, then the session's tokens and cost.
func chatUsageLine(turn, session wire.Usage, cost, sessionCost string) string {
	s := usageLine(turn, cost) + fmt.Sprintf(" · session %s in, %s out", agent.Thousands(session.InputTokens), agent.Thousands(session.OutputTokens))
	if sessionCost != "" {
		s += ", " + sessionCost
	}
	return s
}
