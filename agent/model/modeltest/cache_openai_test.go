package modeltest

import (
	"math/rand"
	"strings"
	"testing"
)

// TestOpenAIBillingIsTheLongestSharedPrefix: the step-keyed billing reads
// exactly what the API's definition says: the longest prefix shared with
// any earlier request, in whole 128-token steps, when it is at least 1024
// tokens. Requests are random mixes of a few long shared pieces, so
// prefixes are shared at every length around the steps.
func TestOpenAIBillingIsTheLongestSharedPrefix(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{strings.Repeat("a", 3000), strings.Repeat("b", 511), strings.Repeat("c", 513), "d", strings.Repeat("e", 4096)}
	var c cacheState
	var earlier [][]byte
	for i := 0; i < 400; i++ {
		var b strings.Builder
		for n := rng.Intn(6); n >= 0; n-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		text := []byte(b.String())
		best := 0
		for _, p := range earlier {
			n := 0
			for n < len(p) && n < len(text) && p[n] == text[n] {
				n++
			}
			best = max(best, n)
		}
		earlier = append(earlier, text)
		want := 0
		if tokensOf(best) >= cacheMinTokens {
			want = tokensOf(best) / openaiCacheStep * openaiCacheStep
		}
		if got := c.billOpenAI(linear{text: text}); got.read != want || got.write != 0 {
			t.Fatalf("request %d (%d bytes, longest shared prefix %d bytes): read %d tokens, want %d", i, len(text), best, got.read, want)
		}
	}
}
