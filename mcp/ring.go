package mcp

import (
	"strings"
	"sync"
)

// ring keeps the last bytes a server wrote to stderr (and the non-JSON lines
// it wrote to stdout), so the server list and error messages can show why a
// server failed without ever copying its output to our own stdout.
type ring struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	wrapped bool // bytes were dropped: buf may start mid-line
}

func newRing(max int) *ring { return &ring{max: max} }

// Write keeps the last max bytes written. It never fails.
func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(p) >= r.max {
		r.buf = append(r.buf[:0], p[len(p)-r.max:]...)
		r.wrapped = true
		return len(p), nil
	}
	if over := len(r.buf) + len(p) - r.max; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
		r.wrapped = true
	}
	r.buf = append(r.buf, p...)
	return len(p), nil
}

// Tail is at most the last lines lines and maxBytes bytes, starting at a
// line boundary when it had to cut, without trailing blank space.
func (r *ring) Tail(lines, maxBytes int) string {
	r.mu.Lock()
	s, partial := string(r.buf), r.wrapped
	r.mu.Unlock()
	s = strings.TrimRight(s, " \t\r\n")
	if len(s) > maxBytes {
		partial = s[len(s)-maxBytes-1] != '\n'
		s = s[len(s)-maxBytes:]
	}
	if partial {
		if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
			s = s[i+1:]
		}
	}
	all := strings.Split(s, "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}
