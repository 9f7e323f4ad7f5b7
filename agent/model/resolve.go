package model

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentls/agentls/config"
)

// Defaults of docs/config.md's [model] table.
const (
	DefaultAnthropicModel = "claude-sonnet-4-5"
	DefaultOpenAIModel    = "gpt-4.1"
	DefaultOllamaModel    = "qwen2.5-coder"
	OllamaURL             = "http://127.0.0.1:11434/v1"
	DefaultMaxTokens      = 8192
)

// Resolved is the provider agentls would use, after docs/config.md's defaults.
type Resolved struct {
	Provider  string // "anthropic" | "openai"
	Name      string
	BaseURL   string
	APIKeyEnv string // "" when no key is needed (local endpoint)
	KeySet    bool
	MaxTokens int
	Why       string // how it was chosen, for `agentls doctor`
	// Fallback is true when nothing was configured and Ollama on localhost
	// was guessed: errors reaching it then say what to configure instead.
	Fallback bool
	// Images: the model is shown the images tools return ([model] images,
	// config.ImagesFor); otherwise it reads only the line naming each.
	Images bool
}

// Resolve applies docs/config.md's defaults to the [model] table: with no provider,
// Anthropic when ANTHROPIC_API_KEY is set, else OpenAI when OPENAI_API_KEY
// is set, else Ollama on localhost. getenv looks variables up (nil: none set).
func Resolve(cfg config.Model, getenv func(string) string) (Resolved, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	r := Resolved{Name: strings.TrimSpace(cfg.Name), MaxTokens: cfg.MaxTokens, APIKeyEnv: strings.TrimSpace(cfg.APIKeyEnv)}
	if r.MaxTokens <= 0 {
		r.MaxTokens = DefaultMaxTokens
	}
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base != "" {
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Resolved{}, fmt.Errorf("[model] base_url %q is not an http(s) URL: expected e.g. %q or %q", cfg.BaseURL, OllamaURL, DefaultAnthropicURL)
		}
	}
	r.Provider = strings.ToLower(strings.TrimSpace(cfg.Provider))
	switch r.Provider {
	case "anthropic", "openai":
		r.Why = fmt.Sprintf("[model] provider = %q in the config", r.Provider)
	case "":
		switch {
		case base != "" && strings.Contains(hostOf(base), "anthropic.com"):
			r.Provider, r.Why = "anthropic", "[model] base_url is Anthropic's (no provider set)"
		case base != "":
			r.Provider, r.Why = "openai", "[model] base_url is set without a provider: an OpenAI-compatible endpoint"
		case strings.HasPrefix(r.Name, "claude"):
			r.Provider, r.Why = "anthropic", fmt.Sprintf("[model] name %q is a Claude model (no provider set)", r.Name)
		case r.APIKeyEnv != "":
			return Resolved{}, fmt.Errorf(`[model] api_key_env is set but provider is not: set [model] provider = "anthropic" or "openai"`)
		case getenv("ANTHROPIC_API_KEY") != "":
			r.Provider, r.Why = "anthropic", "no [model] provider configured; ANTHROPIC_API_KEY is set"
		case getenv("OPENAI_API_KEY") != "":
			r.Provider, r.Why = "openai", "no [model] provider configured; OPENAI_API_KEY is set (ANTHROPIC_API_KEY is not)"
		default:
			r.Provider, r.BaseURL, r.Fallback = "openai", OllamaURL, true
			if r.Name == "" {
				r.Name = DefaultOllamaModel
			}
			r.Why = fmt.Sprintf("no [model] configured and neither ANTHROPIC_API_KEY nor OPENAI_API_KEY is set: trying Ollama at %s with model %s", OllamaURL, r.Name)
			r.Images = config.ImagesFor(cfg.Images, r.Provider, r.Name)
			return r, nil
		}
	default:
		return Resolved{}, fmt.Errorf(`[model] provider %q is unknown: expected "anthropic" or "openai" (any OpenAI-compatible endpoint)`, cfg.Provider)
	}

	if r.Provider == "anthropic" {
		// Our path appends /v1/messages; accept a base written with /v1.
		r.BaseURL = strings.TrimSuffix(base, "/v1")
		if r.BaseURL == "" {
			r.BaseURL = DefaultAnthropicURL
		}
		if r.Name == "" {
			r.Name = DefaultAnthropicModel
		}
		if r.APIKeyEnv == "" {
			r.APIKeyEnv = "ANTHROPIC_API_KEY"
		}
	} else {
		r.BaseURL = base
		if r.BaseURL == "" {
			r.BaseURL = DefaultOpenAIURL
		}
		official := hostOf(r.BaseURL) == "api.openai.com"
		// OPENAI_API_KEY goes only to OpenAI: a key sent to whatever base_url
		// names would leak it to a third-party or attacker-run endpoint.
		if r.APIKeyEnv == "" && official {
			r.APIKeyEnv = "OPENAI_API_KEY"
		}
		if r.Name == "" {
			switch {
			case official:
				r.Name = DefaultOpenAIModel
			case portOf(r.BaseURL) == "11434":
				r.Name = DefaultOllamaModel
			default:
				return Resolved{}, fmt.Errorf("[model] name is not set: name the model to use at %s", r.BaseURL)
			}
		}
	}
	if r.APIKeyEnv != "" {
		r.KeySet = getenv(r.APIKeyEnv) != ""
		if !r.KeySet && !isLocal(r.BaseURL) {
			return Resolved{}, fmt.Errorf("set %s: the %s API key for %s is read from it (or set [model] api_key_env to the variable that holds it)", r.APIKeyEnv, r.Provider, r.BaseURL)
		}
	}
	r.Images = config.ImagesFor(cfg.Images, r.Provider, r.Name)
	return r, nil
}

// New builds the provider for the [model] table, reading the key with getenv.
func New(cfg config.Model, getenv func(string) string) (Provider, error) {
	r, err := Resolve(cfg, getenv)
	if err != nil {
		return nil, err
	}
	key := ""
	if r.APIKeyEnv != "" && getenv != nil {
		key = getenv(r.APIKeyEnv)
	}
	return Open(r, key, nil)
}

// Open builds the provider for a resolved model with the given key. client
// may be nil (the default transport).
func Open(r Resolved, key string, client *http.Client) (Provider, error) {
	maxTokens := r.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	switch r.Provider {
	case "anthropic":
		p := newAnthropic(r.BaseURL, r.Name, key, r.APIKeyEnv, maxTokens, client)
		p.noImages = !r.Images
		return p, nil
	case "openai":
		p := newOpenAI(r.BaseURL, r.Name, key, r.APIKeyEnv, maxTokens, client)
		p.noImages = !r.Images
		if r.Fallback {
			return &fallback{Provider: p, url: r.BaseURL, model: r.Name}, nil
		}
		return p, nil
	}
	return nil, fmt.Errorf("model: provider %q is unknown: expected \"anthropic\" or \"openai\"", r.Provider)
}

// noRedirects copies client so that it never follows a redirect: Go
// forwards custom headers such as x-api-key to whatever host a redirect
// names, so an endpoint (or a hijacked DNS name) could collect the key.
func noRedirects(client *http.Client) *http.Client {
	c := &http.Client{}
	if client != nil {
		*c = *client
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

func portOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Port()
}

// isLocal reports whether a base URL names this machine; such endpoints
// (Ollama, llama.cpp, vLLM) usually need no key.
func isLocal(raw string) bool {
	h := hostOf(raw)
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// NoModelError is the first call's error when nothing was configured and
// the guessed local Ollama did not answer.
type NoModelError struct {
	URL string
	Err error // the *ConnectError
}

// Error says what to set, and what was tried.
func (e *NoModelError) Error() string {
	why := e.Err.Error()
	var ce *ConnectError
	if errors.As(e.Err, &ce) {
		why = short(ce.Err)
	}
	return fmt.Sprintf("no model configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or [model] in ~/.config/agentls/config.toml (tried Ollama at %s: %s)", e.URL, why)
}

// Unwrap returns the connection error.
func (e *NoModelError) Unwrap() error { return e.Err }
