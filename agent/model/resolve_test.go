package model

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/model/providers"
	"github.com/agentls/agentls/config"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestResolveAppliesTheSpecDefaults(t *testing.T) {
	cases := []struct {
		name string
		cfg  config.Model
		env  func(string) string
		want Resolved // Why is checked for non-emptiness only
	}{
		{"no config and ANTHROPIC_API_KEY: Anthropic", config.Model{}, env("ANTHROPIC_API_KEY", "a", "OPENAI_API_KEY", "o"),
			Resolved{Provider: "anthropic", Desc: providers.Anthropic, Name: DefaultAnthropicModel, BaseURL: DefaultAnthropicURL, APIKeyEnv: "ANTHROPIC_API_KEY", KeySet: true, MaxTokens: 8192, Images: true}},
		{"no config and only OPENAI_API_KEY: OpenAI", config.Model{}, env("OPENAI_API_KEY", "o"),
			Resolved{Provider: "openai", Desc: providers.OpenAI, Name: DefaultOpenAIModel, BaseURL: DefaultOpenAIURL, APIKeyEnv: "OPENAI_API_KEY", KeySet: true, MaxTokens: 8192, Images: true}},
		{"nothing at all: Ollama on localhost, no key", config.Model{}, env(),
			Resolved{Provider: "ollama", Desc: providers.Ollama, Name: DefaultOllamaModel, BaseURL: OllamaURL, MaxTokens: 8192, Fallback: true}},
		{"api_key_env overrides the variable", config.Model{Provider: "anthropic", APIKeyEnv: "MY_KEY", MaxTokens: 1000}, env("MY_KEY", "k"),
			Resolved{Provider: "anthropic", Desc: providers.Anthropic, Name: DefaultAnthropicModel, BaseURL: DefaultAnthropicURL, APIKeyEnv: "MY_KEY", KeySet: true, MaxTokens: 1000, Images: true}},
		{"local base_url needs no key even when its variable is unset", config.Model{Provider: "openai", Name: "fake-model", BaseURL: "http://127.0.0.1:9/v1", APIKeyEnv: "AGENTLS_TEST_KEY"}, env(),
			Resolved{Provider: "openai-compatible", Desc: providers.Compatible, Name: "fake-model", BaseURL: "http://127.0.0.1:9/v1", APIKeyEnv: "AGENTLS_TEST_KEY", MaxTokens: 8192}},
		{"OPENAI_API_KEY is never sent to another host: OpenRouter's own is read", config.Model{Provider: "openai", Name: "m", BaseURL: "https://openrouter.ai/api/v1/"}, env("OPENAI_API_KEY", "o", "OPENROUTER_API_KEY", "r"),
			Resolved{Provider: "openrouter", Desc: providers.OpenRouter, Name: "m", BaseURL: "https://openrouter.ai/api/v1", APIKeyEnv: "OPENROUTER_API_KEY", KeySet: true, MaxTokens: 8192}},
		{"OPENAI_API_KEY is never sent to an unknown host", config.Model{Provider: "openai", Name: "m", BaseURL: "https://llm.example.com/v1"}, env("OPENAI_API_KEY", "o"),
			Resolved{Provider: "openai-compatible", Desc: providers.Compatible, Name: "m", BaseURL: "https://llm.example.com/v1", MaxTokens: 8192}},
		{"a provider named by its own name gets its address and key", config.Model{Provider: "deepseek"}, env("DEEPSEEK_API_KEY", "d", "OPENAI_API_KEY", "o"),
			Resolved{Provider: "deepseek", Desc: providers.DeepSeek, Name: "deepseek-chat", BaseURL: "https://api.deepseek.com/v1", APIKeyEnv: "DEEPSEEK_API_KEY", KeySet: true, MaxTokens: 8192}},
		{"a local server named by its own name needs no key", config.Model{Provider: "llamacpp", Name: "qwen"}, env("OPENAI_API_KEY", "o"),
			Resolved{Provider: "llamacpp", Desc: providers.LlamaCpp, Name: "qwen", BaseURL: "http://127.0.0.1:8080/v1", MaxTokens: 8192}},
		{"a named provider keeps its name on another address, and its key stays home", config.Model{Provider: "ollama", BaseURL: "http://gpu-box:11434/v1"}, env(),
			Resolved{Provider: "ollama", Desc: providers.Ollama, Name: DefaultOllamaModel, BaseURL: "http://gpu-box:11434/v1", MaxTokens: 8192}},
		{"Ollama's port gets Ollama's default model", config.Model{Provider: "openai", BaseURL: "http://localhost:11434/v1"}, env(),
			Resolved{Provider: "ollama", Desc: providers.Ollama, Name: DefaultOllamaModel, BaseURL: "http://localhost:11434/v1", MaxTokens: 8192}},
		{"base_url without provider is OpenAI-compatible", config.Model{Name: "llama", BaseURL: "http://[::1]:8080/v1"}, env("ANTHROPIC_API_KEY", "a"),
			Resolved{Provider: "llamacpp", Desc: providers.LlamaCpp, Name: "llama", BaseURL: "http://[::1]:8080/v1", MaxTokens: 8192}},
		{"a claude name without provider is Anthropic", config.Model{Name: "claude-opus-4-1"}, env("ANTHROPIC_API_KEY", "a"),
			Resolved{Provider: "anthropic", Desc: providers.Anthropic, Name: "claude-opus-4-1", BaseURL: DefaultAnthropicURL, APIKeyEnv: "ANTHROPIC_API_KEY", KeySet: true, MaxTokens: 8192, Images: true}},
		{"an Anthropic base_url written with /v1 is accepted", config.Model{Provider: "anthropic", BaseURL: "http://127.0.0.1:5/v1"}, env(),
			Resolved{Provider: "anthropic", Desc: providers.Anthropic, Name: DefaultAnthropicModel, BaseURL: "http://127.0.0.1:5", APIKeyEnv: "ANTHROPIC_API_KEY", MaxTokens: 8192, Images: true}},
		{"[model] images = false holds for Claude too", config.Model{Provider: "anthropic", Images: new(false)}, env("ANTHROPIC_API_KEY", "a"),
			Resolved{Provider: "anthropic", Desc: providers.Anthropic, Name: DefaultAnthropicModel, BaseURL: DefaultAnthropicURL, APIKeyEnv: "ANTHROPIC_API_KEY", KeySet: true, MaxTokens: 8192}},
		{"[model] images = true for a local model agentls does not know", config.Model{Provider: "openai", Name: "my-vlm", BaseURL: "http://127.0.0.1:9/v1", Images: new(true)}, env(),
			Resolved{Provider: "openai-compatible", Desc: providers.Compatible, Name: "my-vlm", BaseURL: "http://127.0.0.1:9/v1", MaxTokens: 8192, Images: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Resolve(c.cfg, c.env)
			if err != nil {
				t.Fatal(err)
			}
			if got.Why == "" {
				t.Error("Why is empty: doctor cannot explain the choice")
			}
			got.Why = ""
			if got != c.want {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestResolveRejectsWhatCannotWork(t *testing.T) {
	cases := []struct {
		name string
		cfg  config.Model
		env  func(string) string
		want string
	}{
		{"a configured key variable that is unset", config.Model{Provider: "anthropic", APIKeyEnv: "MY_KEY"}, env(), "set MY_KEY"},
		{"anthropic chosen without its key", config.Model{Provider: "anthropic"}, env(), "set ANTHROPIC_API_KEY"},
		{"openai chosen without its key", config.Model{Provider: "openai"}, env(), "set OPENAI_API_KEY"},
		{"unknown provider", config.Model{Provider: "gemeni"}, env(), `provider "gemeni" is unknown: expected "anthropic", "openai", `},
		{"base_url that is not http", config.Model{Provider: "openai", BaseURL: "127.0.0.1:11434"}, env(), "is not an http(s) URL"},
		{"custom endpoint without a model name", config.Model{Provider: "openai", BaseURL: "https://example.com/v1"}, env(), "[model] name is not set"},
		{"api_key_env without provider", config.Model{APIKeyEnv: "K"}, env("K", "v"), "set [model] provider"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Resolve(c.cfg, c.env)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
			if _, err := New(c.cfg, c.env); err == nil {
				t.Error("New accepted what Resolve rejects")
			}
		})
	}
}

func TestNothingConfiguredAndNoOllamaSaysWhatToSet(t *testing.T) {
	r, err := Resolve(config.Model{}, env())
	if err != nil {
		t.Fatal(err)
	}
	r.BaseURL = closedURL(t) + "/v1" // stands in for an Ollama that is not running
	p, err := Open(r, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Stream(context.Background(), Request{Messages: []Message{userText("hi")}}, nil)
	var nm *NoModelError
	if !errors.As(err, &nm) {
		t.Fatalf("err = %v, want NoModelError", err)
	}
	want := "no model configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or [model] in ~/.config/agentls/config.toml (tried Ollama at " + r.BaseURL + ": connection refused)"
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
}

func TestOllamaWithoutTheModelSaysPullIt(t *testing.T) {
	s := modeltest.New(t)
	s.Script(modeltest.Turn{Status: 404, ErrorType: "api_error", ErrorMessage: `model "qwen2.5-coder" not found, try pulling it first`})
	r, _ := Resolve(config.Model{}, env())
	r.BaseURL = s.URL() + "/v1"
	p, _ := Open(r, "", nil)
	_, err := p.Stream(context.Background(), Request{Messages: []Message{userText("hi")}}, nil)
	if err == nil || !strings.Contains(err.Error(), "ollama pull qwen2.5-coder") {
		t.Fatalf("err = %v", err)
	}
}

func TestNewSendsTheKeyFromTheConfiguredVariable(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Text: "hi"})
			p, err := New(config.Model{Provider: f.name, Name: "fake-model", BaseURL: f.baseOf(s), APIKeyEnv: "AGENTLS_TEST_KEY"}, env("AGENTLS_TEST_KEY", "sekrit"))
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := stream(t, p, Request{Messages: []Message{userText("hi")}}); err != nil {
				t.Fatal(err)
			}
			h := s.Requests()[0].Header
			switch f.name {
			case "anthropic":
				if h.Get("X-Api-Key") != "sekrit" || h.Get("Anthropic-Version") != "2023-06-01" || h.Get("Authorization") != "" {
					t.Errorf("headers %v", h)
				}
			case "openai":
				if h.Get("Authorization") != "Bearer sekrit" || h.Get("X-Api-Key") != "" {
					t.Errorf("headers %v", h)
				}
			}
			if s.Requests()[0].Model() != "fake-model" {
				t.Errorf("model %q", s.Requests()[0].Model())
			}
		})
	}
}

func TestNoKeyNoAuthorizationHeader(t *testing.T) {
	s := modeltest.New(t)
	s.Script(modeltest.Turn{Text: "hi"})
	p, err := New(config.Model{Provider: "openai", Name: "fake-model", BaseURL: s.URL() + "/v1"}, env("OPENAI_API_KEY", "must-not-leak"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := stream(t, p, Request{Messages: []Message{userText("hi")}}); err != nil {
		t.Fatal(err)
	}
	if h := s.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization %q sent to a local endpoint nobody gave a key for", h)
	}
}

// The README's "Pointing it at a model" gives one config per family: each
// loads without a diagnostic and resolves to the provider it names, with
// its key variable set, so the README stays true as providers change.
func TestTheREADMEsModelConfigsResolve(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	start := strings.Index(section, "### Pointing it at a model")
	if start < 0 {
		t.Fatal(`README.md has no "### Pointing it at a model"`)
	}
	section = section[start:]
	open := strings.Index(section, "```toml\n")
	end := strings.Index(section[open+1:], "\n```")
	if open < 0 || end < 0 {
		t.Fatal("the section has no TOML block")
	}
	block := section[open+len("```toml\n") : open+1+end]
	configs := strings.Split(block, "\n\n")
	families := map[string]bool{}
	for _, c := range configs {
		head, _, _ := strings.Cut(c, "\n")
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, []byte(c+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := config.Load(path, nil)
		if len(cfg.Diagnostics) > 0 {
			t.Errorf("%s: %v", head, cfg.Diagnostics)
			continue
		}
		r, err := Resolve(cfg.Model, func(string) string { return "k" })
		if err != nil {
			t.Errorf("%s: %v", head, err)
			continue
		}
		if r.Provider != cfg.Model.Provider || r.Name == "" || r.BaseURL == "" {
			t.Errorf("%s: resolved to %+v", head, r)
		}
		if p, ok := providers.Lookup(r.Provider); !ok || !p.Local && r.APIKeyEnv == "" {
			t.Errorf("%s: no key variable for %s", head, r.Provider)
		}
		if r.APIKeyEnv != "" && !strings.Contains(head, "("+r.APIKeyEnv+")") {
			t.Errorf("%s: the key is read from %s", head, r.APIKeyEnv)
		}
		families[r.Provider] = true
	}
	for _, f := range []string{"anthropic", "openai", "ollama", "llamacpp", "vllm", "openrouter", "deepseek", "gemini", "groq", "mistral"} {
		if !families[f] {
			t.Errorf("the README gives no config for %s", f)
		}
	}
}
