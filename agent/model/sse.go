package model

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
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
	r       *bufio.Reader
	pending bool // the previous line ended in CR: skip a following LF
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// line reads one line without its terminator. It returns io.EOF only when
// no bytes were left.
func (s *sseReader) line() ([]byte, error) {
	var buf []byte
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			if err == io.EOF && len(buf) > 0 {
				return buf, nil
			}
			return nil, err
		}
		if s.pending {
			s.pending = false
			if c == '\n' {
				continue
			}
		}
		switch c {
		case '\n':
			return buf, nil
		case '\r':
			s.pending = true
			return buf, nil
		}
		buf = append(buf, c)
		if len(buf) > maxSSELine {
			return nil, fmt.Errorf("event stream line longer than %d bytes", maxSSELine)
		}
	}
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
