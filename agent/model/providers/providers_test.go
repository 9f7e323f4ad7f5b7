package providers

import (
	"strings"
	"testing"
)

func TestImagesFor(t *testing.T) {
	no, yes := false, true
	tests := []struct {
		configured *bool
		provider   *Provider
		name       string
		want       bool
	}{
		{nil, Anthropic, "claude-sonnet-4-5", true},
		{nil, OpenAI, "gpt-4.1", true},
		{nil, OpenRouter, "openai/gpt-4o-mini", true},
		{nil, OpenAI, "o4-mini", true},
		{nil, OpenAI, "o3-mini", false},
		{nil, Ollama, "qwen2.5-coder:7b", false},
		{nil, Ollama, "qwen2.5vl:7b", true},
		{nil, Compatible, "llama3.2-vision", true},
		{nil, Compatible, "llama3.1", false},
		{nil, Compatible, "fake-model", false},
		{nil, Gemini, "gemini-2.5-flash", true},
		{&yes, Compatible, "fake-model", true},
		{&no, Anthropic, "claude-sonnet-4-5", false},
	}
	for _, tc := range tests {
		if got := ImagesFor(tc.provider, tc.configured, tc.name); got != tc.want {
			t.Errorf("ImagesFor(%s, %v, %s) = %v; want %v", tc.provider.Name, tc.configured, tc.name, got, tc.want)
		}
	}
}

func TestContextWindowFor(t *testing.T) {
	tests := []struct {
		p          *Provider
		configured int
		name       string
		want       int
	}{
		{Anthropic, 0, "claude-sonnet-4-5", 200000},
		{OpenAI, 0, "gpt-4.1-mini", 1047576},
		{OpenAI, 0, "gpt-4", 8192},
		{OpenRouter, 0, "anthropic/claude-3.5-sonnet", 200000},
		{Ollama, 0, "qwen2.5-coder:7b", 32768},
		{Ollama, 0, "llama3.1:8b", 131072},
		{Ollama, 0, "llama3:8b", 8192},
		{DeepSeek, 0, "deepseek-chat", 128000},
		{Compatible, 0, "something-new", DefaultContextWindow},
		{nil, 0, "gemini-2.5-pro", 1048576},
		{Compatible, 65536, "something-new", 65536},
	}
	for _, tc := range tests {
		if got := ContextWindowFor(tc.p, tc.configured, tc.name); got != tc.want {
			t.Errorf("ContextWindowFor(%v, %d, %q) = %d; want %d", tc.p, tc.configured, tc.name, got, tc.want)
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		wire Wire
		base string
		want *Provider
	}{
		{ChatCompletions, "https://api.openai.com/v1", OpenAI},
		{ChatCompletions, "https://API.DeepSeek.com", DeepSeek},
		{ChatCompletions, "https://generativelanguage.googleapis.com/v1beta/openai", Gemini},
		{ChatCompletions, "http://127.0.0.1:11434/v1", Ollama},
		{ChatCompletions, "http://localhost:8080/v1", LlamaCpp},
		{ChatCompletions, "http://[::1]:8000/v1", VLLM},
		{ChatCompletions, "http://127.0.0.1:1234/v1", LMStudio},
		// A port is the local server's only on this machine.
		{ChatCompletions, "http://gpu-box:11434/v1", Compatible},
		{ChatCompletions, "http://127.0.0.1:9999/v1", Compatible},
		{Messages, "https://api.anthropic.com", Anthropic},
		{Messages, "https://proxy.example", Anthropic},
	}
	for _, tc := range tests {
		if got := Detect(tc.wire, tc.base); got != tc.want {
			t.Errorf("Detect(%s, %s) = %s; want %s", tc.wire, tc.base, got.Name, tc.want.Name)
		}
	}
}

// TestEveryProviderIsWhole holds every row to what the rest of agentls
// relies on: a unique lower-case name, a known wire, a key read only for
// the provider's own hosts, and defaults that fit.
func TestEveryProviderIsWhole(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range All {
		if p.Name == "" || p.Name != strings.ToLower(p.Name) || seen[p.Name] {
			t.Errorf("provider %q: names must be unique and lower case", p.Name)
		}
		seen[p.Name] = true
		if SpecOf(p.Wire).Wire != p.Wire {
			t.Errorf("provider %s: wire %q is not in Wires", p.Name, p.Wire)
		}
		if p.Title == "" {
			t.Errorf("provider %s has no Title", p.Name)
		}
		if p.KeyEnv != "" && len(p.Hosts) == 0 {
			t.Errorf("provider %s reads %s but names no host of its own: the key would go to any base_url", p.Name, p.KeyEnv)
		}
		if p.BaseURL != "" && !p.Local && !p.OwnsHost(p.BaseURL) {
			t.Errorf("provider %s: its base URL %s is not on its own hosts %v", p.Name, p.BaseURL, p.Hosts)
		}
		if p.Local && (p.Port == "" || !IsLocal(p.BaseURL) || p.KeyEnv != "") {
			t.Errorf("provider %s: a local server has a port, a loopback base URL and no key", p.Name)
		}
		if p.BaseURL != "" && Detect(p.Wire, p.BaseURL) != p {
			t.Errorf("provider %s: its own base URL %s is detected as %s", p.Name, p.BaseURL, Detect(p.Wire, p.BaseURL).Name)
		}
		if got, ok := Lookup(" " + strings.ToUpper(p.Name) + " "); !ok || got != p {
			t.Errorf("Lookup(%q) does not find it", p.Name)
		}
	}
	if _, ok := Lookup("gpt"); ok {
		t.Error(`Lookup("gpt") found a provider`)
	}
	if q := Quoted(); !strings.HasPrefix(q, `"anthropic", "openai", `) || !strings.Contains(q, ` or "openai-compatible"`) {
		t.Errorf("Quoted() = %s", q)
	}
}

func TestMaxToolsFor(t *testing.T) {
	if got := Anthropic.MaxToolsFor(0); got != 0 {
		t.Errorf("Anthropic: %d; want 0 (no limit)", got)
	}
	if got := Ollama.MaxToolsFor(0); got != 128 {
		t.Errorf("Ollama: %d; want the chat completions wire's 128", got)
	}
	if got := Anthropic.MaxToolsFor(40); got != 40 {
		t.Errorf("configured: %d; want 40", got)
	}
}

// A Gemini model reads Gemini's schema subset wherever it is served: on
// Google's endpoint, or named through a router or a gateway; the Messages
// wire takes JSON Schema whatever the model.
func TestToolSchemaFor(t *testing.T) {
	tests := []struct {
		p     *Provider
		model string
		want  ToolSchema
	}{
		{Gemini, "gemini-2.5-flash", ToolOpenAPISubset},
		{Gemini, "gemma-3-27b-it", ToolOpenAPISubset},
		{OpenRouter, "google/gemini-2.5-pro", ToolOpenAPISubset},
		{Compatible, "Gemini-2.0-Flash", ToolOpenAPISubset},
		{nil, "models/gemini-3-pro-preview", ToolOpenAPISubset},
		{OpenRouter, "deepseek/deepseek-chat", ToolJSONSchema},
		{OpenAI, "gpt-4.1", ToolJSONSchema},
		{Ollama, "qwen2.5-coder", ToolJSONSchema},
		{Anthropic, "gemini-as-a-proxy-name", ToolJSONSchema},
	}
	for _, tc := range tests {
		name := "nil"
		if tc.p != nil {
			name = tc.p.Name
		}
		if got := ToolSchemaFor(tc.p, tc.model); got != tc.want {
			t.Errorf("ToolSchemaFor(%s, %q) = %q; want %q", name, tc.model, got, tc.want)
		}
	}
}
