package model

import (
	"bytes"
	"testing"
)

// The decoders run once per streamed token batch; these keep an eye on
// their cost per answer (go test -bench Decode ./agent/model).

func benchDecode(b *testing.B, fixture string, decode decoder) {
	raw, err := readFixtureB(fixture)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decode(bytes.NewReader(raw), sink{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeAnthropicToolUse(b *testing.B) {
	benchDecode(b, "anthropic_tool_use.sse", decodeAnthropic)
}

func BenchmarkDecodeOpenAIToolCalls(b *testing.B) {
	benchDecode(b, "openai_tool_calls.sse", decodeOpenAI)
}
