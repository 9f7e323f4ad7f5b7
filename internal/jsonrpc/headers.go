package jsonrpc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// headers is LSP's framing: a header block ("Content-Length: N", other
// headers ignored, any case), a blank line, and N bytes of body. A
// Content-Length over MaxMessageBytes is refused before anything is
// allocated (2147483647 would reserve 3.8 GB).
type headers struct{}

func (headers) reader(r io.Reader) frameReader {
	return &headerReader{in: bufio.NewReaderSize(r, 4096)}
}

func (headers) frame(body []byte) []byte {
	out := make([]byte, 0, len(body)+32)
	out = append(out, "Content-Length: "...)
	out = strconv.AppendInt(out, int64(len(body)), 10)
	out = append(out, "\r\n\r\n"...)
	return append(out, body...)
}

func (headers) expect() string { return "one JSON-RPC 2.0 object per Content-Length frame" }

type headerReader struct{ in *bufio.Reader }

// next reads one Content-Length frame. A clean end of input between
// frames is io.EOF; everything else that goes wrong is a *FramingError.
func (h *headerReader) next() ([]byte, error) {
	var header []byte
	length := int64(-1)
	fail := func(format string, args ...any) ([]byte, error) {
		return nil, &FramingError{Framing: "LSP", Reason: fmt.Sprintf(format, args...), Read: header}
	}
	for {
		line, err := h.in.ReadSlice('\n')
		header = append(header, line...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return fail("a header line longer than %d bytes", h.in.Size())
		case err == io.EOF && len(header) == 0:
			return nil, io.EOF
		case err == io.EOF:
			return fail("the input ended inside the header")
		case err != nil:
			return fail("reading the header: %v", err)
		}
		if len(header) > maxHeaderBytes {
			return fail("a header longer than %d bytes", maxHeaderBytes)
		}
		text := strings.TrimRight(string(line), "\r\n")
		if text == "" {
			if length < 0 && strings.TrimSpace(string(header)) == "" {
				header = header[:0] // blank lines between frames
				continue
			}
			break
		}
		name, value, ok := strings.Cut(text, ":")
		if !ok {
			return fail("header line %q has no colon (want \"Content-Length: N\")", text)
		}
		if !strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			continue // Content-Type and unknown headers
		}
		value = strings.TrimSpace(value)
		n, err := strconv.ParseInt(value, 10, 64)
		switch {
		case err != nil || n < 0:
			return fail("Content-Length %q is not a byte count", value)
		case n > MaxMessageBytes:
			return fail("Content-Length %d is over the limit of %d bytes", n, MaxMessageBytes)
		case length >= 0 && n != length:
			return fail("two Content-Length headers, %d and %d", length, n)
		}
		length = n
	}
	if length < 0 {
		return fail("no Content-Length header")
	}
	body := make([]byte, length)
	var scan valueEnd
	for got := 0; got < len(body); {
		n, err := h.in.Read(body[got:])
		// A Content-Length larger than its body swallows the next frame and
		// then waits for bytes that never come, while the client waits for
		// an answer: seen as soon as the next frame's header ("Content-")
		// follows the body's JSON value. Anything else there is a body that
		// is not one JSON value, which decodeMessage answers.
		if at := scan.feed(body[got:got+n], got); at >= 0 {
			header = append(header, body[:got+n]...)
			return fail("Content-Length %d is larger than its body: the JSON message ended after %d bytes and %s followed (the next message's header?)",
				length, scan.end, quoteBytes(body[at:got+n]))
		}
		got += n
		if err != nil && got < len(body) {
			header = append(header, body[:got]...)
			return fail("the input ended after %d of %d body bytes", got, length)
		}
	}
	return body, nil
}

// valueEnd follows a frame's body byte by byte to where its top-level JSON
// object or array ends, and then looks for the next frame's header there.
// Only an object or array is followed (a scalar body is no JSON-RPC
// message, and decodeMessage answers it).
type valueEnd struct {
	started, off, done bool
	depth              int
	inString, escape   bool
	end                int // the offset just past the value, once done
	header             int // how much of headerStart follows the value
	headerAt           int // the offset where it starts
}

// headerStart is how every LSP header line starts (Content-Length,
// Content-Type), lower case.
const headerStart = "content-"

// feed scans b, which starts at offset base of the body, and returns the
// offset where a header ("Content-", any case) starts after the value,
// or -1. Anything else after the value ends the scan: the body is then
// a well-framed message that is not one JSON value.
func (v *valueEnd) feed(b []byte, base int) int {
	for i, c := range b {
		switch {
		case v.off:
			return -1
		case v.done:
			if v.header == 0 && (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
				continue
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != headerStart[v.header] {
				v.off = true
				return -1
			}
			if v.header == 0 {
				v.headerAt = base + i
			}
			if v.header++; v.header == len(headerStart) {
				return v.headerAt
			}
		case !v.started:
			switch c {
			case ' ', '\t', '\r', '\n':
			case '{', '[':
				v.started, v.depth = true, 1
			default:
				v.off = true
			}
		case v.inString:
			switch {
			case v.escape:
				v.escape = false
			case c == '\\':
				v.escape = true
			case c == '"':
				v.inString = false
			}
		case c == '"':
			v.inString = true
		case c == '{' || c == '[':
			v.depth++
		case c == '}' || c == ']':
			if v.depth--; v.depth == 0 {
				v.done, v.end = true, base+i+1
			}
		}
	}
	return -1
}
