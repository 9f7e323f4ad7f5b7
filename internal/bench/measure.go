// Package bench holds what agentls's benchmarks share: interleaved timing
// of a subject against a baseline measured in the same run, medians and
// percentiles, and the metric names scripts/bench.sh turns into figure
// lines. Absolute times on a shared 2-core machine mean little; ratios
// against a baseline taken in the same run do. It is test support only and
// must never be imported by the agentls binary.
package bench

import (
	"sort"
	"testing"
	"time"
)

// Metric units the report reads (internal/bench/report). A figure is a
// subject unit U, its baseline "base-"+U and a ratio; the report pairs them
// by the names listed in its figure table.
const (
	UnitMicros = "µs"
	UnitMillis = "ms"
	UnitMB     = "MB"
	UnitTokens = "tokens"
	UnitRatio  = "ratio"
	BasePrefix = "base-"
)

// Pair times a subject and a baseline in alternation, n times each,
// flipping which goes first on every round so drift and warm-up hit both
// alike. Each function does one operation and returns its own duration, so
// untimed setup inside it (a process start, a Close) stays out of the
// figure.
func Pair(n int, subject, baseline func() time.Duration) (subj, base []time.Duration) {
	subj = make([]time.Duration, 0, n)
	base = make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			subj = append(subj, subject())
			base = append(base, baseline())
		} else {
			base = append(base, baseline())
			subj = append(subj, subject())
		}
	}
	return subj, base
}

// Timed runs f and returns how long it took.
func Timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// Median is the middle duration (the mean of the two middle ones for an
// even count); 0 for none. Medians, not means: one descheduled run on a
// shared machine must not move a figure.
func Median(d []time.Duration) time.Duration { return Percentile(d, 50) }

// Percentile is the p-th percentile (0..100) by linear interpolation
// between the closest ranks; 0 for none.
func Percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	pos := p / 100 * float64(len(s)-1)
	lo := int(pos)
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	frac := pos - float64(lo)
	return s[lo] + time.Duration(frac*float64(s[lo+1]-s[lo]))
}

// Micros is d in microseconds.
func Micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// Millis is d in milliseconds.
func Millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Ratio is subject over baseline; 0 when the baseline is 0.
func Ratio(subject, baseline float64) float64 {
	if baseline == 0 {
		return 0
	}
	return subject / baseline
}

// ReportPair reports a subject and a baseline in one unit plus their
// ratio, under names prefixed by prefix ("" for the benchmark's main
// figure): prefix+unit, "base-"+prefix+unit and prefix+"ratio".
func ReportPair(b *testing.B, prefix, unit string, subject, baseline float64) {
	b.ReportMetric(subject, prefix+unit)
	b.ReportMetric(baseline, BasePrefix+prefix+unit)
	b.ReportMetric(Ratio(subject, baseline), prefix+UnitRatio)
}

// ReportDurations reports the medians of two interleaved samples in
// microseconds, their ratio, and the median added time per operation.
func ReportDurations(b *testing.B, prefix string, subj, base []time.Duration) {
	s, bs := Micros(Median(subj)), Micros(Median(base))
	ReportPair(b, prefix, UnitMicros, s, bs)
	b.ReportMetric(s-bs, prefix+"added-µs")
}
