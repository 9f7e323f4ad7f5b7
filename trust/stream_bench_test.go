package trust

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkStreamRedactor is the redactor's cost per answer of 2000 words
// streamed a word a delta: plain prose, and prose after an opening that
// keeps every later cut unsafe until the end (a private key block never
// closed, an open quote after key = on one long line).
func BenchmarkStreamRedactor(b *testing.B) {
	var words []string
	for i := 0; i < 2000; i++ {
		words = append(words, fmt.Sprintf("word%d ", i))
	}
	for _, c := range []struct{ name, head string }{
		{"prose", ""},
		{"open-key-block", "-----BEGIN RSA PRIVATE KEY-----\n"},
		{"open-quote", `password = "`},
	} {
		b.Run(c.name, func(b *testing.B) {
			want := Redact(c.head + strings.Join(words, ""))
			for b.Loop() {
				var s StreamRedactor
				var out strings.Builder
				out.WriteString(s.Write(c.head))
				for _, w := range words {
					out.WriteString(s.Write(w))
				}
				out.WriteString(s.Flush())
				if out.String() != want {
					b.Fatalf("streamed %q, want %q", out.String()[:80], want[:80])
				}
			}
		})
	}
}
