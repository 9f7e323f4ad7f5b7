package trust

import (
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
