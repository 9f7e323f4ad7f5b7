package config

import "testing"

func TestImagesFor(t *testing.T) {
	no, yes := false, true
	tests := []struct {
		configured     *bool
		provider, name string
		want           bool
	}{
		{nil, "anthropic", "claude-sonnet-4-5", true},
		{nil, "openai", "gpt-4.1", true},
		{nil, "openai", "openai/gpt-4o-mini", true},
		{nil, "openai", "o4-mini", true},
		{nil, "openai", "o3-mini", false},
		{nil, "openai", "qwen2.5-coder:7b", false},
		{nil, "openai", "qwen2.5vl:7b", true},
		{nil, "openai", "llama3.2-vision", true},
		{nil, "openai", "llama3.1", false},
		{nil, "openai", "fake-model", false},
		{&yes, "openai", "fake-model", true},
		{&no, "anthropic", "claude-sonnet-4-5", false},
	}
	for _, tc := range tests {
		if got := ImagesFor(tc.configured, tc.provider, tc.name); got != tc.want {
			t.Errorf("ImagesFor(%v, %s, %s) = %v; want %v", tc.configured, tc.provider, tc.name, got, tc.want)
		}
	}
}
