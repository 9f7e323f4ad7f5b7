package jsonrpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// lines is ACP's framing: one message per line (newline-delimited JSON).
// A peer that left out a newline put several messages on one line: each
// is its own message (the first one's caller would otherwise wait forever
// for its reply, and a parse error with id null reaches nobody), and what
// cannot be read as JSON from there on is one more, which gets one parse
// error.
type lines struct{}

func (lines) reader(r io.Reader) frameReader {
	return &lineReader{in: bufio.NewReaderSize(r, 64<<10)}
}

func (lines) frame(body []byte) []byte {
	return append(append(make([]byte, 0, len(body)+1), body...), '\n')
}

func (lines) expect() string { return "one JSON-RPC 2.0 message per line" }

type lineReader struct {
	in      *bufio.Reader
	queued  [][]byte // the rest of the current line's messages
	lastErr error    // how the last line ended, once its messages are out
}

func (l *lineReader) next() ([]byte, error) {
	for len(l.queued) == 0 {
		if l.lastErr != nil {
			return nil, l.lastErr
		}
		line, err := l.readLine()
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		l.lastErr = err
		l.queued = split(line)
	}
	m := l.queued[0]
	l.queued = l.queued[1:]
	return m, nil
}

// readLine reads one line without its newline, refusing one over
// MaxMessageBytes.
func (l *lineReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := l.in.ReadLine()
		line = append(line, chunk...)
		if len(line) > MaxMessageBytes {
			return nil, &FramingError{Framing: "ACP", Reason: fmt.Sprintf("a message longer than %d bytes", MaxMessageBytes), Read: line[:quoteLimit]}
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}

// split cuts a line into its JSON values; what does not decode, from
// where it starts, is the last one.
func split(line []byte) [][]byte {
	var out [][]byte
	dec := json.NewDecoder(bytes.NewReader(line))
	for {
		var raw json.RawMessage
		at := dec.InputOffset()
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			return append(out, line[at:])
		}
		out = append(out, raw)
	}
}
