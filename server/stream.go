package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// Limits of one incoming frame. jsonrpc2's own stream allocates whatever
// Content-Length says (2147483647 reserves 3.8 GB) and fails the whole
// connection on any error; ours refuses a frame over the cap before
// allocating it and answers a bad message instead of hanging up.
const (
	// maxFrameBytes caps one message body. It leaves room for a 50 MB
	// prompt, which agent/run then refuses with a clear error.
	maxFrameBytes = 64 << 20
	// maxHeaderBytes caps the header block of one frame.
	maxHeaderBytes = 8 << 10
	// quoteLimit caps what a framing error quotes of what was read.
	quoteLimit = 200
)

// framingError is a frame that cannot be read: the stream is out of step
// and there is no next message to go on with. Serve logs it (with what was
// read) and exits non-zero.
type framingError struct {
	reason string
	read   []byte // what was read of the frame, capped
}

func (e *framingError) Error() string {
	return fmt.Sprintf("agentls: unreadable LSP message (%s); read %s", e.reason, quoteBytes(e.read))
}

// quoteBytes quotes b, cut to quoteLimit bytes.
func quoteBytes(b []byte) string {
	if len(b) > quoteLimit {
		return strconv.Quote(string(b[:quoteLimit])) + fmt.Sprintf(" (first %d of %d bytes)", quoteLimit, len(b))
	}
	return strconv.Quote(string(b))
}

// stream is a jsonrpc2.Stream with LSP's Content-Length framing that
// survives bad input: a well-framed message that is not valid JSON-RPC gets
// the spec's error reply (-32700 parse error, -32600 invalid request) and
// reading goes on; only a frame that cannot be delimited ends the stream,
// with a *framingError.
type stream struct {
	in     *bufio.Reader
	out    io.Writer
	closer io.Closer
	logf   func(format string, args ...any)

	wmu sync.Mutex // one frame at a time: conn's replies and our error replies
}

var _ jsonrpc2.Stream = (*stream)(nil)

func newStream(rwc io.ReadWriteCloser, logf func(string, ...any)) *stream {
	return &stream{in: bufio.NewReaderSize(rwc, 4096), out: rwc, closer: rwc, logf: logf}
}

// Read returns the next valid message. Invalid ones are answered here.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, total, err
		}
		body, n, err := s.readFrame()
		total += n
		if err != nil {
			return nil, total, err
		}
		msg, bad := decodeMessage(body)
		if bad == nil {
			return msg, total, nil
		}
		s.logf("agentls: %s; message %s", bad.Message, quoteBytes(body))
		if err := s.writeError(bad); err != nil {
			return nil, total, fmt.Errorf("agentls: answering a bad message: %w", err)
		}
	}
}

// readFrame reads one Content-Length frame. A clean end of input between
// frames is io.EOF; everything else that goes wrong is a *framingError.
func (s *stream) readFrame() ([]byte, int64, error) {
	var header []byte
	length := int64(-1)
	fail := func(format string, args ...any) ([]byte, int64, error) {
		return nil, int64(len(header)), &framingError{reason: fmt.Sprintf(format, args...), read: header}
	}
	for {
		line, err := s.in.ReadSlice('\n')
		header = append(header, line...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return fail("a header line longer than %d bytes", s.in.Size())
		case err == io.EOF && len(header) == 0:
			return nil, 0, io.EOF
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
		if !strings.EqualFold(strings.TrimSpace(name), jsonrpc2.HdrContentLength) {
			continue // Content-Type and unknown headers
		}
		value = strings.TrimSpace(value)
		n, err := strconv.ParseInt(value, 10, 64)
		switch {
		case err != nil || n < 0:
			return fail("Content-Length %q is not a byte count", value)
		case n > maxFrameBytes:
			return fail("Content-Length %d is over the limit of %d bytes", n, maxFrameBytes)
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
		n, err := s.in.Read(body[got:])
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
	return body, int64(len(header)) + length, nil
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

// Write sends one message.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m, ok := msg.(json.Marshaler) // *Call, *Response, *Notification all are
	if !ok {
		return 0, fmt.Errorf("agentls: cannot encode a %T", msg)
	}
	data, err := m.MarshalJSON()
	if err != nil {
		return 0, fmt.Errorf("agentls: encoding a message: %w", err)
	}
	return s.writeFrame(data)
}

// writeError sends the error reply to a message that could not be handled.
func (s *stream) writeError(bad *badMessage) error {
	id := bad.ID
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc2.Error `json:"error"`
	}{"2.0", id, &jsonrpc2.Error{Code: bad.Code, Message: bad.Message}})
	if err != nil {
		return fmt.Errorf("encoding the error reply: %w", err)
	}
	_, err = s.writeFrame(data)
	return err
}

func (s *stream) writeFrame(data []byte) (int64, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s: %d\r\n\r\n", jsonrpc2.HdrContentLength, len(data))
	buf.Write(data)
	n, err := s.out.Write(buf.Bytes())
	if err != nil {
		return int64(n), fmt.Errorf("agentls: writing to the client: %w", err)
	}
	return int64(n), nil
}

// Close closes the underlying connection.
func (s *stream) Close() error { return s.closer.Close() }
