package trust

import (
	"context"
	"errors"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// referenceRedact is Redact as it was before it went line by line: every
// rule over the whole text. The line-by-line Redact must agree with it.
func referenceRedact(s string) string {
	s = privateKey.ReplaceAllString(s, Redacted)
	for _, sh := range secretShapes {
		s = sh.re.ReplaceAllString(s, Redacted)
	}
	s = authScheme.ReplaceAllString(s, "${1}${2}"+Redacted)
	s = urlCreds.ReplaceAllString(s, "${1}:"+Redacted+"@")
	return keyValue.ReplaceAllStringFunc(s, func(m string) string {
		sub := keyValue.FindStringSubmatch(m)
		key, sep, val := sub[1], sub[2], sub[3]
		if !secretKey(key) || strings.Contains(val, Redacted) || authSchemeWord(val) {
			return m
		}
		if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') {
			return key + sep + val[:1] + Redacted + val[:1]
		}
		return key + sep + Redacted
	})
}

// TestRedactAgreesWithTheWholeTextRules builds texts from fragments that
// touch every rule (secrets split over lines, auth words at line ends,
// blank lines, key blocks without an END, quotes, URLs) and checks the
// line-by-line Redact gives exactly what the whole-text rules give.
func TestRedactAgreesWithTheWholeTextRules(t *testing.T) {
	frags := []string{
		"\n", "\n\n", " ", "\t", "x", "key", "=", ":", "\"", "'", ";", "Bearer", "bearer", "TOKEN", "Token", "basic", "Digest",
		"Authorization: Bearer", "abcDEF123456789012345678", "ghp_0123456789abcdefABCDEF", "sk-ant-0123456789abcdefghij",
		"AKIA0123456789ABCDEF", "xoxb-12345678-abc", "eyJabcd.eyJefgh.sig", "npm_0123456789012345678901234567890123",
		"https://user:pass@host/x", "http://a:b@", "password = \"a b c\"", "api_key='q w'", "secret:", "author=me",
		"-----BEGIN RSA PRIVATE KEY-----", "MIIEvQIBADANBg", "-----END RSA PRIVATE KEY-----", "github_pat_0123456789abcdefghij",
		"AIza" + strings.Repeat("A", 35), "glpat-0123456789abcdefghij", "é", "\r\n", "monkey: banana",
	}
	rng := rand.New(rand.NewSource(17))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.Intn(12) + 1; n > 0; n-- {
			b.WriteString(frags[rng.Intn(len(frags))])
		}
		in := b.String()
		if got, want := Redact(in), referenceRedact(in); got != want {
			t.Fatalf("Redact(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// countdown is a context whose Err turns to Canceled after n looks: a
// cancel that arrives while a long text is being redacted.
type countdown struct {
	context.Context
	n int
}

func (c *countdown) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestRedactContextStopsWhenCancelled: a cancel arriving mid-way through a
// 50 MB text stops the redaction at the next 64 KB, not at the end.
func TestRedactContextStopsWhenCancelled(t *testing.T) {
	text := strings.Repeat("token = abc; ordinary line of a log\n", 50<<20/36)
	parent, cancel := context.WithCancel(context.Background()) // a context that can end
	defer cancel()
	ctx := &countdown{Context: parent, n: 3}
	out, err := RedactContext(ctx, text)
	if !errors.Is(err, context.Canceled) || out != "" {
		t.Fatalf("RedactContext = %d bytes, %v; want context.Canceled", len(out), err)
	}
	if ctx.n != -1 {
		t.Errorf("ctx looked at %d more times after the cancel", -1-ctx.n)
	}
	if _, err := RedactContext(context.Background(), "token = abc"); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkRedact50MB is figure 17: redacting 50 MB of log text (a line in
// ten names a secret) against copying it, the floor of any linear pass.
func BenchmarkRedact50MB(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 50<<20; i++ {
		if i%10 == 0 {
			sb.WriteString("2026-12-02 request ok api_key=abcdef0123456789 user=alice\n")
		} else {
			sb.WriteString("2026-12-02 GET /index.html 200 1534 bytes in 3 ms from 10.0.0.1\n")
		}
	}
	text := sb.String()
	var subj, base []time.Duration
	for b.Loop() {
		t0 := time.Now()
		out := Redact(text)
		t1 := time.Now()
		cp := strings.Clone(text)
		subj, base = append(subj, t1.Sub(t0)), append(base, time.Since(t1))
		if len(out) == len(text) || len(cp) != len(text) {
			b.Fatal("nothing redacted")
		}
	}
	med := func(d []time.Duration) float64 {
		s := append([]time.Duration(nil), d...)
		for i := range s {
			for j := i + 1; j < len(s); j++ {
				if s[j] < s[i] {
					s[i], s[j] = s[j], s[i]
				}
			}
		}
		return float64(s[len(s)/2]) / float64(time.Millisecond)
	}
	b.ReportMetric(med(subj), "ms")
	b.ReportMetric(med(base), "base-ms")
	b.ReportMetric(med(subj)/med(base), "ratio")
	b.ReportMetric(float64(len(text))/(1<<20)/(med(subj)/1000), "MB/s")
}
