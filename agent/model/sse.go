package model

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// maxSSELine bounds one line of an event stream, so a broken or hostile
// endpoint cannot make agentls buffer without limit.
const maxSSELine = 8 << 20

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	Event string // "" when the stream sent no event: field
	Data  string // data lines joined by "\n"
}

// sseReader decodes text/event-stream as the HTML standard defines it:
// lines end in LF, CRLF or CR; ":" starts a comment; one space after the
// colon is dropped; several data lines join with "\n"; a blank line
// dispatches; an event without data is not dispatched.
type sseReader struct {
	sc  *bufio.Scanner
	buf *[]byte // the scanner's first buffer, from sseBuffers
}

// sseBuffers keeps the scanners' first 16 KiB buffers between streams.
// Every model request reads a stream, and a new buffer for each (zeroed
// when allocated) was about a tenth of what a tool turn allocated. A line
// longer than the buffer still grows the scanner's own copy, up to
// maxSSELine; the pool keeps only the first.
var sseBuffers = sync.Pool{New: func() any {
	b := make([]byte, 16<<10)
	return &b
}}

func newSSEReader(r io.Reader) *sseReader {
	buf := sseBuffers.Get().(*[]byte)
	sc := bufio.NewScanner(r)
	sc.Buffer((*buf)[:0], maxSSELine)
	sc.Split(scanSSELine)
	return &sseReader{sc: sc, buf: buf}
}

// release gives the reader's first buffer back for the next stream; the
// reader is not used after. What Next returned stays valid: it copies
// every line it keeps into strings, never into the buffer.
func (s *sseReader) release() {
	if s.buf != nil {
		sseBuffers.Put(s.buf)
		s.buf, s.sc = nil, nil
	}
}

// lineEnd is the index of data's first CR or LF, or -1 for none: the LF
// found by bytes.IndexByte, then a CR before it, two vectorized scans
// where bytes.IndexAny tests the set byte by byte (it was the reader's
// largest cost per line, under cachegrind). A stream whose lines end in
// CR alone (which no endpoint sends) pays a scan of the rest of the
// buffer for an LF on each line.
func lineEnd(data []byte) int {
	i := bytes.IndexByte(data, '\n')
	head := data
	if i >= 0 {
		head = data[:i]
	}
	if j := bytes.IndexByte(head, '\r'); j >= 0 {
		return j
	}
	return i
}

// scanSSELine splits at LF, CRLF or a lone CR.
func scanSSELine(data []byte, atEOF bool) (int, []byte, error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := lineEnd(data); i >= 0 {
		switch {
		case data[i] == '\n':
			return i + 1, data[:i], nil
		case i+1 < len(data) && data[i+1] == '\n':
			return i + 2, data[:i], nil
		case i+1 < len(data) || atEOF:
			return i + 1, data[:i], nil
		}
		return 0, nil, nil // a CR at the end of the buffer: is an LF next?
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// line reads one line without its terminator; io.EOF when none is left.
func (s *sseReader) line() ([]byte, error) {
	if s.sc.Scan() {
		return s.sc.Bytes(), nil
	}
	if err := s.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("event stream line longer than %d bytes", maxSSELine)
		}
		return nil, err
	}
	return nil, io.EOF
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// an event cut off before its blank line is dropped, as the standard says.
func (s *sseReader) Next() (sseEvent, error) {
	var ev sseEvent
	var data bytes.Buffer
	hasData := false
	for {
		ln, err := s.line()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return sseEvent{}, io.EOF
			}
			return sseEvent{}, err
		}
		if len(ln) == 0 {
			if hasData {
				ev.Data = data.String()
				return ev, nil
			}
			ev = sseEvent{}
			continue
		}
		if ln[0] == ':' {
			continue
		}
		field, value := ln, []byte(nil)
		if i := bytes.IndexByte(ln, ':'); i >= 0 {
			field, value = ln[:i], ln[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(field) {
		case "event":
			ev.Event = string(value)
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.Write(value)
			hasData = true
		}
	}
}
