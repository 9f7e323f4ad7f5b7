package model

import "testing"

func BenchmarkCheckTools(b *testing.B) {
	tools := benchTools(1209)
	b.ReportAllocs()
	for b.Loop() {
		if err := checkTools("openai", tools); err != nil {
			b.Fatal(err)
		}
	}
}
