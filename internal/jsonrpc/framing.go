package jsonrpc

import (
	"fmt"
	"io"
	"strconv"
)

// framing delimits messages on a byte stream.
type framing interface {
	// reader reads frames from r.
	reader(r io.Reader) frameReader
	// frame is body as it goes on the wire.
	frame(body []byte) []byte
	// expect says what a message must be, for a body that is not JSON.
	expect() string
}

// frameReader returns one message body at a time: io.EOF at a clean end
// of input between messages, a *FramingError when the stream cannot be
// delimited (there is no next message to go on with).
type frameReader interface {
	next() ([]byte, error)
}

// Limits of one incoming message.
const (
	// MaxMessageBytes caps one message. It leaves room for a 50 MB prompt,
	// which the agent then refuses with a clear error; a runaway peer
	// cannot grow memory without bound.
	MaxMessageBytes = 64 << 20
	// maxHeaderBytes caps the header block of one LSP frame.
	maxHeaderBytes = 8 << 10
	// quoteLimit caps what a framing error quotes of what was read.
	quoteLimit = 200
)

// FramingError is a frame that cannot be delimited: the stream is out of
// step and there is no next message to go on with. Serve returns it; the
// front says it on stderr and exits non-zero.
type FramingError struct {
	Framing string // whose: "LSP", "ACP"
	Reason  string
	Read    []byte // what was read of the frame, capped
}

func (e *FramingError) Error() string {
	return fmt.Sprintf("agentls: unreadable %s message (%s); read %s", e.Framing, e.Reason, quoteBytes(e.Read))
}

// quoteBytes quotes b, cut to quoteLimit bytes.
func quoteBytes(b []byte) string {
	if len(b) > quoteLimit {
		return strconv.Quote(string(b[:quoteLimit])) + fmt.Sprintf(" (first %d of %d bytes)", quoteLimit, len(b))
	}
	return strconv.Quote(string(b))
}
