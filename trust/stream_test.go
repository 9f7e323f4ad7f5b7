package trust

import (
	"fmt"
	"strings"
	"testing"
)

// TestStreamRedactorNeverLetsOutPartOfASecret cuts texts with secrets at
// every byte (two pieces) and into single bytes: what comes out must join to
// Redact of the whole, and no piece let out before the end may hold a
// fragment of a secret.
func TestStreamRedactorNeverLetsOutPartOfASecret(t *testing.T) {
	texts := []string{
		"the key is ghp_AbCdEfGhIjKlMnOpQrStUv0123 and more words after it",
		"set password = hunter2hunter2 then go",
		`config: {"api_key": "two words secret", "name": "x"} ok`,
		"curl -H 'Authorization: Bearer opaqueCredential0123456789' https://x",
		"token: abcdefghijklmnop\nnext line",
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter the key",
		"a url https://user:s3cretpass@example.com/path and sk-ant-api03-abcdefghijklmnopqrstuv",
	}
	fragments := []string{"AbCdEfGhIj", "hunter2", "two words", "opaqueCred", "abcdefghijklmnop", "b3BlbnNz", "s3cretpass", "api03-abcdef"}
	for _, text := range texts {
		want := Redact(text)
		check := func(pieces []string) {
			var s StreamRedactor
			var outs []string
			for _, p := range pieces {
				outs = append(outs, s.Write(p))
			}
			outs = append(outs, s.Flush())
			if got := strings.Join(outs, ""); got != want {
				t.Errorf("pieces %q:\n got %q\nwant %q", pieces, got, want)
			}
			for _, o := range outs {
				for _, f := range fragments {
					if strings.Contains(o, f) {
						t.Errorf("pieces %q: let out %q, a piece of a secret", pieces, o)
					}
				}
			}
		}
		for i := 1; i < len(text); i++ {
			check([]string{text[:i], text[i:]})
		}
		check(strings.Split(text, ""))
	}
	// It streams: plain prose comes out word by word.
	var s StreamRedactor
	if got := s.Write("plain words here "); got != "plain words here " {
		t.Errorf("plain prose held back: %q", got)
	}
}

// TestStreamRedactorHoldsLongUnsafeTextAndThenStreams: text that stays
// unsafe for thousands of pieces (a quote opened after "password =" on a
// long line, a key block not yet closed) is held whole, never partly let
// out, and once it is closed the text after it streams again before the
// end; joined, the output is Redact of the whole.
func TestStreamRedactorHoldsLongUnsafeTextAndThenStreams(t *testing.T) {
	words := func(prefix string, n int) []string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, fmt.Sprintf("%s%d ", prefix, i))
		}
		return out
	}
	for _, c := range []struct{ name, open, close, secret string }{
		{"open quote", `password = "hunter2hunter2 `, "\"\n", "hunter2"},
		{"key block", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA ", "\n-----END RSA PRIVATE KEY-----\n", "MIIEow"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pieces := append([]string{"before it ", c.open}, words("held", 2000)...)
			pieces = append(pieces, c.close)
			after := words("after", 3000)
			pieces = append(pieces, after...)
			want := Redact(strings.Join(pieces, ""))
			var s StreamRedactor
			var outs []string
			streamedAfter := false
			for i, p := range pieces {
				out := s.Write(p)
				if strings.Contains(out, c.secret) || strings.Contains(out, "held1999") && !strings.Contains(want, "held1999") {
					t.Fatalf("piece %d let out part of the secret: %.80q", i, out)
				}
				if strings.Contains(out, "after") && i < len(pieces)-1 {
					streamedAfter = true
				}
				outs = append(outs, out)
			}
			outs = append(outs, s.Flush())
			if got := strings.Join(outs, ""); got != want {
				t.Fatalf("joined output differs from Redact of the whole:\n got %.200q\nwant %.200q", got, want)
			}
			if !streamedAfter {
				t.Errorf("nothing after the closed secret came out before the end: the text was held to the end")
			}
		})
	}
}
