package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/term"
)

// errInterrupt is readLine's error when the user pressed Ctrl-C.
var errInterrupt = errors.New("interrupted")

// keyboard is the one reader of the terminal: a read of a terminal cannot
// be interrupted, so one goroutine reads for the life of the process and
// hands on what was typed; whoever asks next (the prompt, a card) gets it.
type keyboard struct {
	in    *os.File
	out   io.Writer
	once  sync.Once
	bytes chan []byte // closed at the end of input
	// pending is what was read past the last key handed out.
	pending []byte
}

func newKeyboard(in *os.File, out io.Writer) *keyboard { return &keyboard{in: in, out: out} }

func (k *keyboard) start() {
	k.once.Do(func() {
		k.bytes = make(chan []byte)
		go func() {
			defer close(k.bytes)
			for {
				buf := make([]byte, 256)
				n, err := k.in.Read(buf)
				if n > 0 {
					k.bytes <- buf[:n]
				}
				if err != nil {
					return
				}
			}
		}()
	})
}

// drop forgets what was typed before now: a stray "y" typed while the
// answer streamed must never answer a card the user has not seen.
func (k *keyboard) drop() {
	k.start()
	k.pending = nil
	for {
		select {
		case _, ok := <-k.bytes:
			if !ok {
				return
			}
		default:
			return
		}
	}
}

// next is the next byte typed; io.EOF at the end of input.
func (k *keyboard) next(ctx context.Context) (byte, error) {
	k.start()
	for len(k.pending) == 0 {
		select {
		case b, ok := <-k.bytes:
			if !ok {
				return 0, io.EOF
			}
			k.pending = b
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	b := k.pending[0]
	k.pending = k.pending[1:]
	return b, nil
}

// history is what was entered at the prompt, oldest first.
type history struct{ lines []string }

func (h *history) add(line string) {
	if line == "" || (len(h.lines) > 0 && h.lines[len(h.lines)-1] == line) {
		return
	}
	h.lines = append(h.lines, line)
}

// readLine reads one line on the terminal in raw mode with line editing:
// left and right, Home/End (Ctrl-A, Ctrl-E), Backspace, Delete, Ctrl-U,
// Ctrl-W, and with hist the arrow keys up and down through it. Enter ends
// the line; Ctrl-C returns errInterrupt; Ctrl-D on an empty line io.EOF.
// Without a terminal (a pipe in tests of the editor) it reads the same
// keys without touching the terminal's mode.
func (k *keyboard) readLine(ctx context.Context, prompt string, hist *history) (string, error) {
	if fd := int(k.in.Fd()); term.IsTerminal(fd) {
		old, err := term.MakeRaw(fd)
		if err != nil {
			return "", fmt.Errorf("terminal: %w", err)
		}
		defer term.Restore(fd, old)
	}
	e := &lineEditor{out: k.out, prompt: prompt, hist: hist}
	if hist != nil {
		e.at = len(hist.lines)
	}
	e.redraw()
	for {
		b, err := k.next(ctx)
		if err != nil {
			io.WriteString(k.out, "\r\n")
			return "", err
		}
		line, done, err := e.key(ctx, b, k)
		if done || err != nil {
			io.WriteString(k.out, "\r\n")
			return line, err
		}
	}
}

// lineEditor is one line being edited: runes and the cursor in them.
type lineEditor struct {
	out    io.Writer
	prompt string
	buf    []rune
	pos    int
	hist   *history
	at     int    // the history line shown; len(hist.lines) is the new line
	draft  []rune // the new line, kept while the history is browsed
	utf    []byte // an incomplete UTF-8 sequence
}

// key handles one byte; done with the line at Enter.
func (e *lineEditor) key(ctx context.Context, b byte, k *keyboard) (line string, done bool, err error) {
	switch b {
	case '\r', '\n':
		return string(e.buf), true, nil
	case 3: // Ctrl-C
		return string(e.buf), false, errInterrupt
	case 4: // Ctrl-D
		if len(e.buf) == 0 {
			return "", false, io.EOF
		}
		e.deleteAt(e.pos)
	case 1: // Ctrl-A
		e.pos = 0
	case 5: // Ctrl-E
		e.pos = len(e.buf)
	case 2: // Ctrl-B
		e.pos = max(e.pos-1, 0)
	case 6: // Ctrl-F
		e.pos = min(e.pos+1, len(e.buf))
	case 127, 8: // Backspace
		if e.pos > 0 {
			e.pos--
			e.deleteAt(e.pos)
		}
	case 21: // Ctrl-U
		e.buf, e.pos = append([]rune{}, e.buf[e.pos:]...), 0
	case 11: // Ctrl-K
		e.buf = e.buf[:e.pos]
	case 23: // Ctrl-W
		i := e.pos
		for i > 0 && e.buf[i-1] == ' ' {
			i--
		}
		for i > 0 && e.buf[i-1] != ' ' {
			i--
		}
		e.buf = append(e.buf[:i], e.buf[e.pos:]...)
		e.pos = i
	case 16: // Ctrl-P
		e.browse(-1)
	case 14: // Ctrl-N
		e.browse(1)
	case 27: // an escape sequence: arrows, Home, End, Delete
		e.escape(ctx, k)
	default:
		if b < 32 {
			return "", false, nil // other control keys do nothing
		}
		e.utf = append(e.utf, b)
		if !utf8.FullRune(e.utf) {
			return "", false, nil
		}
		r, _ := utf8.DecodeRune(e.utf)
		e.utf = e.utf[:0]
		e.buf = append(e.buf[:e.pos], append([]rune{r}, e.buf[e.pos:]...)...)
		e.pos++
	}
	e.redraw()
	return "", false, nil
}

// escape reads the rest of an escape sequence (CSI or SS3) and acts on it.
func (e *lineEditor) escape(ctx context.Context, k *keyboard) {
	b, err := k.next(ctx)
	if err != nil || (b != '[' && b != 'O') {
		return
	}
	var params []byte
	for {
		c, err := k.next(ctx)
		if err != nil {
			return
		}
		if c >= 0x40 && c <= 0x7e { // the final byte
			switch {
			case c == 'A':
				e.browse(-1)
			case c == 'B':
				e.browse(1)
			case c == 'C':
				e.pos = min(e.pos+1, len(e.buf))
			case c == 'D':
				e.pos = max(e.pos-1, 0)
			case c == 'H' || (c == '~' && (string(params) == "1" || string(params) == "7")):
				e.pos = 0
			case c == 'F' || (c == '~' && (string(params) == "4" || string(params) == "8")):
				e.pos = len(e.buf)
			case c == '~' && string(params) == "3":
				e.deleteAt(e.pos)
			}
			return
		}
		params = append(params, c)
	}
}

func (e *lineEditor) deleteAt(i int) {
	if i < len(e.buf) {
		e.buf = append(e.buf[:i], e.buf[i+1:]...)
	}
}

// browse moves through the history: -1 older, +1 newer.
func (e *lineEditor) browse(d int) {
	if e.hist == nil {
		return
	}
	to := e.at + d
	if to < 0 || to > len(e.hist.lines) {
		return
	}
	if e.at == len(e.hist.lines) {
		e.draft = append([]rune{}, e.buf...)
	}
	e.at = to
	if to == len(e.hist.lines) {
		e.buf = append([]rune{}, e.draft...)
	} else {
		e.buf = []rune(e.hist.lines[to])
	}
	e.pos = len(e.buf)
}

// redraw writes the prompt and the line again, the cursor where it is.
// The line is the user's own typing, shown escaped all the same (a pasted
// escape sequence must not redraw the screen).
func (e *lineEditor) redraw() {
	shown := oneLine(string(e.buf))
	before := []rune(oneLine(string(e.buf[:e.pos])))
	back := len([]rune(shown)) - len(before)
	var b strings.Builder
	b.WriteString("\r" + e.prompt + shown + "\x1b[K")
	if back > 0 {
		fmt.Fprintf(&b, "\x1b[%dD", back)
	}
	io.WriteString(e.out, b.String())
}
