package model

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfterReadsSecondsDatesAndMilliseconds(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"HTTP date", map[string]string{"Retry-After": now.Add(9 * time.Second).Format(http.TimeFormat)}, 9 * time.Second},
		{"date in the past means now", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"retry-after-ms wins", map[string]string{"Retry-After": "3", "Retry-After-Ms": "250"}, 250 * time.Millisecond},
		{"garbage is ignored", map[string]string{"Retry-After": "soon"}, 0},
		{"absent", nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range c.header {
				h.Set(k, v)
			}
			if got := retryAfter(h, now); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestBackoffGrowsWithJitterAndIsCapped(t *testing.T) {
	p := defaultRetry()
	for n := 1; n <= 8; n++ {
		full := min(p.base<<(n-1), p.max)
		for range 50 {
			d := p.backoff(n, 0)
			if d > full || (full < p.max && d < full/2) {
				t.Fatalf("attempt %d: backoff %v outside [%v, %v]", n, d, full/2, full)
			}
		}
	}
	if d := p.backoff(1, time.Hour); d != p.max {
		t.Errorf("Retry-After of an hour gave %v, want the cap %v", d, p.max)
	}
}
