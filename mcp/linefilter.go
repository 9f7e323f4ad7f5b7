package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"unicode/utf8"
)

// lineFilter sits between a server's stdout and the SDK. The SDK ends the
// session on the first line that is not a JSON-RPC message and on any frame
// over its limit; servers print banners and logs to stdout, and a huge result
// must not kill a session. So every line is checked here: JSON-RPC messages
// pass through, anything else goes to onJunk (logged, kept in the stderr
// tail), and a line over max bytes is dropped, answered in its place by a
// JSON-RPC error for the request it was answering when its id can be found.
type lineFilter struct {
	src    io.ReadCloser
	br     *bufio.Reader
	max    int
	onJunk func(line []byte)
	line   []byte // the line being assembled
	out    []byte // what Read still has to hand out
	err    error  // sticky read error, returned once out is drained
}

func newLineFilter(src io.ReadCloser, max int, onJunk func([]byte)) *lineFilter {
	return &lineFilter{src: src, br: bufio.NewReaderSize(src, 64<<10), max: max, onJunk: onJunk}
}

// Read hands out whole accepted lines, each ending in "\n".
func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.next()
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

// Close closes the server's stdout, which unblocks a pending Read.
func (f *lineFilter) Close() error { return f.src.Close() }

// next reads one line and decides what to pass on.
func (f *lineFilter) next() {
	if cap(f.line) > 1<<20 {
		f.line = nil // do not keep a 20 MB buffer alive for small messages
	}
	f.line = f.line[:0]
	var head, tail []byte
	oversize := 0
	for {
		chunk, err := f.br.ReadSlice('\n')
		switch {
		case oversize > 0:
			oversize += len(chunk)
			tail = appendTail(tail, chunk, 512)
		case len(f.line)+len(chunk) > f.max:
			head = append([]byte(nil), f.line[:min(len(f.line), 1024)]...)
			if len(head) < 1024 {
				head = append(head, chunk[:min(len(chunk), 1024-len(head))]...)
			}
			tail = appendTail(append([]byte(nil), f.line[max(0, len(f.line)-512):]...), chunk, 512)
			oversize = len(f.line) + len(chunk)
			f.line = f.line[:0]
		default:
			f.line = append(f.line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			f.err = err
		}
		break
	}
	if oversize > 0 {
		oversize -= len(tail) - len(bytes.TrimRight(tail, "\r\n"))
		f.tooLarge(head, tail, oversize)
		return
	}
	line := bytes.TrimRight(f.line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if !isJSONRPC(line) {
		f.onJunk(line)
		return
	}
	// Hand out the line buffer itself: next runs again only once it is drained.
	f.out = append(line, '\n')
}

// isJSONRPC accepts an object carrying "jsonrpc" (or a non-empty batch of
// them); a JSON log line on stdout is junk, not a reason to end the session.
// Its verdict is exactly isJSONRPCDecoded's (the SDK's own decoding rules),
// reached without decoding: the SDK parses every line again anyway.
func isJSONRPC(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) > bigLine {
		// Parsing a multi-megabyte result twice costs more than it guards:
		// a big line that claims JSON-RPC at either end goes to the SDK.
		head, tail := line[:256], line[len(line)-256:]
		return (line[0] == '{' || line[0] == '[') && (bytes.Contains(head, jsonrpcKey) || bytes.Contains(tail, jsonrpcKey))
	}
	// Broken JSON must never reach the SDK: it ends the session.
	if len(line) == 0 || (line[0] != '{' && line[0] != '[') || !json.Valid(line) {
		return false
	}
	if line[0] == '{' {
		ok, exact, _ := objectHasJSONRPC(line, 0)
		if !exact {
			return isJSONRPCDecoded(line)
		}
		return ok
	}
	i := skipWS(line, 1)
	if line[i] == ']' {
		return false // an empty batch
	}
	for {
		if line[i] != '{' {
			return false // null, a scalar or an array in a batch
		}
		ok, exact, end := objectHasJSONRPC(line, i)
		if !exact {
			return isJSONRPCDecoded(line)
		}
		if !ok {
			return false
		}
		i = skipWS(line, end)
		if line[i] == ']' {
			return true
		}
		i = skipWS(line, i+1) // past ','
	}
}

// objectHasJSONRPC reads the valid JSON object at b[i] as decoding it into
// struct{ JSONRPC string `json:"jsonrpc"` } would: keys match "jsonrpc"
// ignoring case, the last string value wins, null changes nothing, and any
// other value is a type error. exact is false for a key with an escape or a
// non-ASCII byte, whose matching only a decoder gets right. end is just
// past the object.
func objectHasJSONRPC(b []byte, i int) (ok, exact bool, end int) {
	bad := false
	i = skipWS(b, i+1)
	if b[i] == '}' {
		return false, true, i + 1
	}
	for {
		ks := i + 1 // b[i] is the key's opening quote
		j := ks
		for b[j] != '"' {
			if b[j] == '\\' || b[j] >= utf8.RuneSelf {
				return false, false, 0
			}
			j++
		}
		key := b[ks:j]
		v := skipWS(b, skipWS(b, j+1)+1) // past ':'
		i = skipValue(b, v)
		if len(key) == len("jsonrpc") && bytes.EqualFold(key, jsonrpcName) {
			switch b[v] {
			case '"':
				ok = i-v > 2 // any character, escaped or not, makes it non-empty
			case 'n': // null leaves the field as it was
			default:
				bad = true
			}
		}
		i = skipWS(b, i)
		if b[i] == '}' {
			return ok && !bad, true, i + 1
		}
		i = skipWS(b, i+1) // past ','
	}
}

// skipValue returns the index just past the valid JSON value at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
	}
	for ; i < len(b); i++ { // a number, true, false or null
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return i
}

// skipString returns the index just past the valid JSON string at b[i].
func skipString(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// skipWS skips JSON whitespace.
func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// isJSONRPCDecoded is the reference check: decode the line the way the SDK
// will and look at "jsonrpc".
func isJSONRPCDecoded(line []byte) bool {
	switch line[0] {
	case '{':
		var m struct {
			JSONRPC string `json:"jsonrpc"`
		}
		return json.Unmarshal(line, &m) == nil && m.JSONRPC != ""
	case '[':
		var batch []struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
			return false
		}
		for _, m := range batch {
			if m.JSONRPC == "" {
				return false
			}
		}
		return true
	}
	return false
}

// bigLine is the size above which a line is only checked at its ends.
const bigLine = 64 << 10

var (
	jsonrpcKey  = []byte(`"jsonrpc"`)
	jsonrpcName = []byte("jsonrpc")
)

func appendTail(tail, chunk []byte, n int) []byte {
	tail = append(tail, chunk...)
	if len(tail) > n {
		tail = append(tail[:0], tail[len(tail)-n:]...)
	}
	return tail
}

var (
	// A response whose id comes last, as the TypeScript SDK writes it:
	// `..."jsonrpc":"2.0","id":7}` can only be the top-level id.
	tailIDRE = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*\}\s*$`)
)

// tooLarge replaces a dropped oversized line with an error response, so the
// call waiting for it ends now instead of at its timeout.
func (f *lineFilter) tooLarge(head, tail []byte, size int) {
	f.onJunk([]byte(fmt.Sprintf("(dropped a %d-byte message: over the %d-byte limit on one message)", size, f.max)))
	id := headID(head)
	if id == nil {
		if m := tailIDRE.FindSubmatch(bytes.TrimRight(tail, "\r\n")); m != nil {
			id = m[1]
		}
	}
	if id == nil {
		return
	}
	msg := fmt.Sprintf("the server's answer was %d bytes, over the %d-byte limit on one message; it was dropped", size, f.max)
	resp, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      json.RawMessage(id),
		"error":   map[string]any{"code": -32603, "message": msg},
	})
	f.out = append(append(f.out[:0], resp...), '\n')
}

// headID finds the top-level "id" when it comes before any nested value, as
// Go's encoders write it: {"jsonrpc":"2.0","id":7,"result":{...
func headID(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		key, ok := k.(string)
		if !ok {
			return nil
		}
		var v json.RawMessage
		if key == "id" {
			if dec.Decode(&v) != nil {
				return nil
			}
			return v
		}
		// Skip only scalar values: a nested value may not be complete in head.
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		if _, nested := t.(json.Delim); nested {
			return nil
		}
	}
}
