package trust

// StreamRedactor redacts text that arrives in pieces, such as a model's
// streamed answer, without ever letting out part of a secret cut across two
// pieces. It holds back the tail that could still become (or complete) a
// secret: always the word being written, and further back whatever a later
// piece could turn into a match (a "Bearer" waiting for its credential, a
// "password =" waiting for its value, an open quote, an unterminated private
// key block). Joined, what it lets out is Redact of the whole text.
// Not safe for concurrent use.
type StreamRedactor struct {
	pending string // received, not yet let out; starts where a cut was safe
	// checked is the last cut point of pending found unsafe: whether a cut
	// is safe depends only on the text before it, so it is never tried
	// again (0 when none was tried since text was let out).
	checked int
	// heldAt is len(pending) when every cut point tried was unsafe; past
	// holdSmall, cuts are tried again only once pending has doubled, so
	// text that stays unsafe (a key block never closed, a quote open on a
	// long line) costs linear work, not a redaction of all of it per piece.
	heldAt int
}

// maxCutTries bounds the cut points tried per piece (from the end back);
// when none is safe the text waits for the next piece, or Flush.
const maxCutTries = 8

// holdSmall is how much held text is tried again on every piece.
const holdSmall = 1 << 10

// probes are continuations that complete every secret pattern that can
// span whitespace: a cut is safe only if none of them redacts differently
// across it than without it.
var probes = []string{
	"zqzqzqzqzqzqzqzq",
	"= zqzqzqzqzqzq",
	": zqzqzqzqzqzq",
	`zq zq" zq' zq`,
	"PRIVATE KEY-----\nzq",
	"\nzq -----END PRIVATE KEY-----",
}

// probesRedacted is Redact of each probe.
var probesRedacted = func() []string {
	out := make([]string, len(probes))
	for i, p := range probes {
		out[i] = Redact(p)
	}
	return out
}()

// Write takes the next piece and returns the redacted text that is now
// safe to show (possibly "").
func (s *StreamRedactor) Write(piece string) string {
	s.pending += piece
	if len(s.pending) > holdSmall && len(s.pending) < 2*s.heldAt {
		return ""
	}
	end := len(s.pending)
	for tries := 0; tries < maxCutTries; tries++ {
		c := lastSpaceEnd(s.pending[:end])
		if c <= s.checked {
			break
		}
		if s.safeCut(c) {
			out := Redact(s.pending[:c])
			s.pending = s.pending[c:]
			s.checked, s.heldAt = 0, 0
			return out
		}
		if tries == 0 {
			s.checked = c
		}
		end = c - 1
		for end > 0 && isSpaceByte(s.pending[end-1]) {
			end--
		}
	}
	s.heldAt = len(s.pending)
	return ""
}

// Flush returns the rest, redacted; the stream is over.
func (s *StreamRedactor) Flush() string {
	out := Redact(s.pending)
	*s = StreamRedactor{}
	return out
}

// safeCut reports whether redacting pending[:c] on its own and whatever
// follows on its own gives the same text as redacting them together.
func (s *StreamRedactor) safeCut(c int) bool {
	head := s.pending[:c]
	rh := Redact(head)
	for i, p := range probes {
		if Redact(head+p) != rh+probesRedacted[i] {
			return false
		}
	}
	return true
}

// lastSpaceEnd is the index just past the last ASCII whitespace in s (so
// the word after it, which may still grow, stays behind); 0 if there is none.
func lastSpaceEnd(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if isSpaceByte(s[i]) {
			return i + 1
		}
	}
	return 0
}

func isSpaceByte(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}
