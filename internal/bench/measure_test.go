package bench

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		name string
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{"no samples give zero", nil, 50, 0},
		{"one sample is every percentile", ms(7), 99, 7 * time.Millisecond},
		{"median of an odd count is the middle one, whatever the order", ms(9, 1, 5), 50, 5 * time.Millisecond},
		{"median of an even count is the mean of the middle two", ms(4, 1, 3, 2), 50, 2500 * time.Microsecond},
		{"p100 is the largest", ms(3, 10, 1), 100, 10 * time.Millisecond},
		{"p0 is the smallest", ms(3, 10, 1), 0, time.Millisecond},
		{"p99 interpolates between the closest ranks", ms(0, 100), 99, 99 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.in, tt.p); got != tt.want {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tt.in, tt.p, got, tt.want)
			}
		})
	}
}

func TestPercentileLeavesItsInputAlone(t *testing.T) {
	in := []time.Duration{3, 1, 2}
	Median(in)
	if in[0] != 3 || in[1] != 1 || in[2] != 2 {
		t.Errorf("Median sorted its input in place: %v", in)
	}
}

func TestPairAlternatesWhichGoesFirst(t *testing.T) {
	var order []string
	subj, base := Pair(4,
		func() time.Duration { order = append(order, "s"); return 2 },
		func() time.Duration { order = append(order, "b"); return 1 })
	if got, want := len(subj)+len(base), 8; got != want {
		t.Fatalf("%d samples, want %d", got, want)
	}
	if got := string([]byte{order[0][0], order[1][0], order[2][0], order[3][0], order[4][0], order[5][0]}); got != "sbbssb" {
		t.Errorf("order %v, want subject first on even rounds and baseline first on odd ones", order)
	}
	for i := range subj {
		if subj[i] != 2 || base[i] != 1 {
			t.Errorf("round %d: subject %v baseline %v, samples swapped", i, subj[i], base[i])
		}
	}
}

func TestRatio(t *testing.T) {
	if got := Ratio(3, 2); got != 1.5 {
		t.Errorf("Ratio(3, 2) = %v", got)
	}
	if got := Ratio(3, 0); got != 0 {
		t.Errorf("Ratio(3, 0) = %v, want 0 rather than +Inf in a report", got)
	}
}
