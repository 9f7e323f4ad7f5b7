package config

import (
	"sort"
	"strconv"
	"strings"
)

// keyLines maps each key path of a TOML document (parts joined by keySep) to
// the line where it first appears. The TOML library keeps key positions to
// itself, so we find them with a small scanner run over a document the
// library has already accepted: it only needs to know where keys and values
// start and end, never what the values mean.
type keyLines map[string]int

const keySep = "\x00"

func pathKey(path []string) string { return strings.Join(path, keySep) }

// line returns where path was written, falling back to its nearest ancestor
// that has a known line (0 when none does).
func (kl keyLines) line(path []string) int {
	for n := len(path); n > 0; n-- {
		if l, ok := kl[pathKey(path[:n])]; ok {
			return l
		}
	}
	return 0
}

// locateKeys scans a valid TOML document and records the line of every table
// header, dotted key and inline-table key, with all their prefixes.
func locateKeys(src []byte) keyLines {
	s := &keyScanner{src: src, lines: keyLines{}}
	for i, c := range src {
		if c == '\n' {
			s.newlines = append(s.newlines, i)
		}
	}
	s.document()
	return s.lines
}

type keyScanner struct {
	src      []byte
	pos      int
	newlines []int // byte offsets of '\n'
	lines    keyLines
}

func (s *keyScanner) eof() bool { return s.pos >= len(s.src) }

// clamp keeps pos inside the document after skipping an escape at its end.
func (s *keyScanner) clamp() { s.pos = min(s.pos, len(s.src)) }

func (s *keyScanner) peek(off int) byte {
	if s.pos+off < len(s.src) {
		return s.src[s.pos+off]
	}
	return 0
}

func (s *keyScanner) lineAt(pos int) int {
	return sort.SearchInts(s.newlines, pos) + 1
}

func (s *keyScanner) record(path []string, pos int) {
	line := s.lineAt(pos)
	for n := 1; n <= len(path); n++ {
		k := pathKey(path[:n])
		if _, ok := s.lines[k]; !ok {
			s.lines[k] = line
		}
	}
}

func (s *keyScanner) skipSpace() {
	for !s.eof() && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t') {
		s.pos++
	}
}

// skipBlank skips spaces, newlines and comments.
func (s *keyScanner) skipBlank() {
	for !s.eof() {
		switch s.src[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		case '#':
			s.skipLine()
		default:
			return
		}
	}
}

func (s *keyScanner) skipLine() {
	for !s.eof() && s.src[s.pos] != '\n' {
		s.pos++
	}
}

func (s *keyScanner) document() {
	var table []string
	for {
		s.skipBlank()
		if s.eof() {
			return
		}
		start := s.pos
		if s.src[s.pos] == '[' {
			s.pos++
			if s.peek(0) == '[' {
				s.pos++
			}
			table = s.key()
			s.record(table, start)
			s.skipLine()
			continue
		}
		key := s.key()
		full := append(append([]string{}, table...), key...)
		s.record(full, start)
		s.skipSpace()
		if s.peek(0) == '=' {
			s.pos++
		}
		s.value(full)
		s.skipLine()
		if s.pos == start { // never loop without progress, whatever the input
			s.pos++
		}
	}
}

// key reads a dotted key: bare, "basic" or 'literal' parts.
func (s *keyScanner) key() []string {
	var parts []string
	for {
		s.skipSpace()
		if s.eof() {
			return parts
		}
		switch s.src[s.pos] {
		case '"':
			start := s.pos
			s.basicString()
			raw := string(s.src[start:s.pos])
			if u, err := strconv.Unquote(raw); err == nil {
				parts = append(parts, u)
			} else {
				parts = append(parts, strings.Trim(raw, `"`))
			}
		case '\'':
			s.pos++
			start := s.pos
			for !s.eof() && s.src[s.pos] != '\'' && s.src[s.pos] != '\n' {
				s.pos++
			}
			parts = append(parts, string(s.src[start:s.pos]))
			if !s.eof() && s.src[s.pos] == '\'' {
				s.pos++
			}
		default:
			start := s.pos
			for !s.eof() && isBareKeyByte(s.src[s.pos]) {
				s.pos++
			}
			parts = append(parts, string(s.src[start:s.pos]))
			if s.pos == start {
				return parts
			}
		}
		s.skipSpace()
		if s.peek(0) != '.' {
			return parts
		}
		s.pos++
	}
}

func isBareKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// value skips one value, recording the keys of inline tables under path.
func (s *keyScanner) value(path []string) {
	s.skipSpace()
	if s.eof() {
		return
	}
	switch s.src[s.pos] {
	case '"':
		if s.peek(1) == '"' && s.peek(2) == '"' {
			s.multiline('"')
		} else {
			s.basicString()
		}
	case '\'':
		if s.peek(1) == '\'' && s.peek(2) == '\'' {
			s.multiline('\'')
		} else {
			s.pos++
			for !s.eof() && s.src[s.pos] != '\'' && s.src[s.pos] != '\n' {
				s.pos++
			}
			s.pos++
		}
	case '[':
		s.pos++
		for {
			s.skipBlank()
			if s.eof() {
				return
			}
			switch s.src[s.pos] {
			case ']':
				s.pos++
				return
			case ',':
				s.pos++
			default:
				before := s.pos
				s.value(path)
				if s.pos == before {
					s.pos++
				}
			}
		}
	case '{':
		s.pos++
		for {
			s.skipBlank()
			if s.eof() {
				return
			}
			switch s.src[s.pos] {
			case '}':
				s.pos++
				return
			case ',':
				s.pos++
			default:
				start := s.pos
				full := append(append([]string{}, path...), s.key()...)
				s.record(full, start)
				s.skipSpace()
				if s.peek(0) == '=' {
					s.pos++
				}
				s.value(full)
				if s.pos == start {
					s.pos++
				}
			}
		}
	default:
		s.scalar()
	}
}

// scalar skips a number, boolean or date-time. A date and a time may be
// separated by one space ("1979-05-27 07:32:00Z").
func (s *keyScanner) scalar() {
	start := s.pos
	for !s.eof() {
		c := s.src[s.pos]
		if c == ' ' && s.pos-start == 10 && s.src[start+4] == '-' && s.peek(1) >= '0' && s.peek(1) <= '9' {
			s.pos++
			continue
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' || c == '}' || c == '#' {
			return
		}
		s.pos++
	}
}

// basicString skips a "..." string, escapes included.
func (s *keyScanner) basicString() {
	defer s.clamp()
	s.pos++ // opening quote
	for !s.eof() {
		switch s.src[s.pos] {
		case '\\':
			s.pos += 2
		case '"':
			s.pos++
			return
		case '\n':
			return
		default:
			s.pos++
		}
	}
}

// multiline skips a multi-line basic or literal string. Up to two extra quotes
// right before the closing delimiter belong to the content.
func (s *keyScanner) multiline(q byte) {
	defer s.clamp()
	s.pos += 3
	for !s.eof() {
		c := s.src[s.pos]
		if c == '\\' && q == '"' {
			s.pos += 2
			continue
		}
		if c == q && s.peek(1) == q && s.peek(2) == q {
			s.pos += 3
			for i := 0; i < 2 && s.peek(0) == q; i++ {
				s.pos++
			}
			return
		}
		s.pos++
	}
}
