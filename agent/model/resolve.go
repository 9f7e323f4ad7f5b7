package model

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentls/agentls/agent/model/providers"
	"github.com/agentls/agentls/config"
)

// Defaults of docs/config.md's [model] table (the providers' descriptors hold them).
var (
	DefaultAnthropicModel = providers.Anthropic.Model
	DefaultOpenAIModel    = providers.OpenAI.Model
	DefaultOllamaModel    = providers.Ollama.Model
	OllamaURL             = providers.Ollama.BaseURL
)

// Resolved is the provider agentls would use, after docs/config.md's defaults.
type Resolved struct {
	Provider  string // the provider's name (Desc.Name): "anthropic", "ollama", "openai-compatible", ...
	Desc      *providers.Provider
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
	// providers.ImagesFor); otherwise it reads only the line naming each.
	Images bool
	// IdleTimeout is [model] stream_idle_timeout (0: the default).
	IdleTimeout time.Duration
	// TokenField is [model] max_tokens_field ("": chosen per endpoint).
	TokenField string
	// Thinking is [model] thinking: the budget of Anthropic's extended
	// thinking, 0 when off.
	Thinking int
	// Memory keeps what the endpoint said about itself (nil: nothing kept);
	// callers set it (NewIn), Resolve does not.
	Memory *Memory
}

// Wire is the wire format the resolved provider speaks.
func (r Resolved) Wire() providers.Wire { return r.desc().Wire }

// desc is Desc, or the provider Provider names when Desc was not filled in.
func (r Resolved) desc() *providers.Provider {
	if r.Desc != nil {
		return r.Desc
	}
	if d, ok := providers.Lookup(r.Provider); ok {
		return d
	}
	return providers.Compatible
}

// Resolve applies docs/config.md's defaults to the [model] table: with no provider,
// Anthropic when ANTHROPIC_API_KEY is set, else OpenAI when OPENAI_API_KEY
// is set, else Ollama on localhost. getenv looks variables up (nil: none set).
func Resolve(cfg config.Model, getenv func(string) string) (Resolved, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	r := Resolved{Name: strings.TrimSpace(cfg.Name), MaxTokens: cfg.MaxTokens, APIKeyEnv: strings.TrimSpace(cfg.APIKeyEnv),
		IdleTimeout: cfg.StreamIdleTimeout, TokenField: cfg.MaxTokensField, Thinking: cfg.Thinking}
	r.MaxTokens = cfg.EffectiveMaxTokens()
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base != "" {
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Resolved{}, fmt.Errorf("[model] base_url %q is not an http(s) URL: expected e.g. %q or %q", cfg.BaseURL, OllamaURL, DefaultAnthropicURL)
		}
	}
	var d *providers.Provider
	if name := strings.ToLower(strings.TrimSpace(cfg.Provider)); name != "" {
		var ok bool
		if d, ok = providers.Lookup(name); !ok {
			return Resolved{}, fmt.Errorf(`[model] provider %q is unknown: expected %s ("openai" with a base_url is any OpenAI-compatible endpoint)`, cfg.Provider, providers.Quoted())
		}
		r.Why = fmt.Sprintf("[model] provider = %q in the config", name)
		// "openai" named the chat completions wire before providers were
		// told apart: with another server's base_url it is that server.
		if d == providers.OpenAI && base != "" && !d.OwnsHost(base) {
			d = providers.Detect(providers.ChatCompletions, base)
			r.Why += fmt.Sprintf(" with the base_url of %s: an OpenAI-compatible endpoint", d.Title)
		}
	} else {
		switch {
		case base != "" && strings.Contains(hostOf(base), "anthropic.com"):
			d, r.Why = providers.Anthropic, "[model] base_url is Anthropic's (no provider set)"
		case base != "":
			d = providers.Detect(providers.ChatCompletions, base)
			r.Why = fmt.Sprintf("[model] base_url is set without a provider: an OpenAI-compatible endpoint (%s)", d.Title)
		case strings.HasPrefix(r.Name, "claude"):
			d, r.Why = providers.Anthropic, fmt.Sprintf("[model] name %q is a Claude model (no provider set)", r.Name)
		case r.APIKeyEnv != "":
			return Resolved{}, fmt.Errorf(`[model] api_key_env is set but provider is not: set [model] provider to one of %s`, providers.Quoted())
		case getenv(providers.Anthropic.KeyEnv) != "":
			d, r.Why = providers.Anthropic, "no [model] provider configured; ANTHROPIC_API_KEY is set"
		case getenv(providers.OpenAI.KeyEnv) != "":
			d, r.Why = providers.OpenAI, "no [model] provider configured; OPENAI_API_KEY is set (ANTHROPIC_API_KEY is not)"
		default:
			r.Provider, r.Desc, r.BaseURL, r.Fallback = providers.Ollama.Name, providers.Ollama, OllamaURL, true
			if r.Name == "" {
				r.Name = DefaultOllamaModel
			}
			r.Why = fmt.Sprintf("no [model] configured and neither ANTHROPIC_API_KEY nor OPENAI_API_KEY is set: trying Ollama at %s with model %s", OllamaURL, r.Name)
			r.Images = providers.ImagesFor(r.Desc, cfg.Images, r.Name)
			return r, nil
		}
	}
	r.Provider, r.Desc = d.Name, d
	if r.Thinking > 0 && d.Wire != providers.Messages {
		return Resolved{}, fmt.Errorf(`[model] thinking is the extended thinking of Anthropic's Messages wire, and %s speaks %s: remove it (a reasoning model there thinks by itself; its reasoning is shown as it streams)`, d.Title, d.Wire)
	}

	r.BaseURL = base
	if d.Wire == providers.Messages {
		// Our path appends /v1/messages; accept a base written with /v1.
		r.BaseURL = strings.TrimSuffix(base, "/v1")
	}
	if r.BaseURL == "" {
		r.BaseURL = d.BaseURL
	}
	if r.BaseURL == "" {
		return Resolved{}, fmt.Errorf("[model] base_url is not set: provider %q has no address of its own; set it to the server's, e.g. %q", d.Name, OllamaURL)
	}
	// A key goes by default only to its provider's own hosts: a key sent
	// to whatever base_url names would leak it to a third-party or
	// attacker-run endpoint. Anthropic's key also goes to a base_url set
	// with provider "anthropic" (a gateway for Claude), as it always has.
	if r.APIKeyEnv == "" && d.KeyEnv != "" && (d.OwnsHost(r.BaseURL) || d.KeyForAnyBaseURL) {
		r.APIKeyEnv = d.KeyEnv
	}
	if r.Name == "" {
		if r.Name = d.Model; r.Name == "" {
			return Resolved{}, fmt.Errorf("[model] name is not set: name the model to use at %s", r.BaseURL)
		}
	}
	if r.APIKeyEnv != "" {
		r.KeySet = getenv(r.APIKeyEnv) != ""
		if !r.KeySet && !providers.IsLocal(r.BaseURL) {
			return Resolved{}, fmt.Errorf("set %s: the %s API key for %s is read from it (or set [model] api_key_env to the variable that holds it)", r.APIKeyEnv, d.Title, r.BaseURL)
		}
	}
	r.Images = providers.ImagesFor(d, cfg.Images, r.Name)
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

// NewIn is New keeping what endpoints say about themselves in stateDir
// (Memory; "" keeps nothing).
func NewIn(cfg config.Model, getenv func(string) string, stateDir string) (Provider, error) {
	r, err := Resolve(cfg, getenv)
	if err != nil {
		return nil, err
	}
	r.Memory = OpenMemory(stateDir)
	key := ""
	if r.APIKeyEnv != "" && getenv != nil {
		key = getenv(r.APIKeyEnv)
	}
	return Open(r, key, nil)
}

// Open builds the provider for a resolved model with the given key. client
// may be nil (the default transport).
func Open(r Resolved, key string, client *http.Client) (Provider, error) {
	limits := config.Model{MaxTokens: r.MaxTokens, StreamIdleTimeout: r.IdleTimeout}
	maxTokens, idle := limits.EffectiveMaxTokens(), limits.EffectiveStreamIdleTimeout()
	d := r.desc()
	switch d.Wire {
	case providers.Messages:
		p := newAnthropic(r.BaseURL, r.Name, key, r.APIKeyEnv, maxTokens, client)
		p.desc = d
		p.thinking = r.Thinking
		p.noImages = !r.Images
		p.ep.idle = idle
		return p, nil
	case providers.ChatCompletions:
		p := newOpenAI(r.BaseURL, r.Name, key, r.APIKeyEnv, maxTokens, client)
		p.desc = d
		p.newTokenField.Store(d.Quirks.MaxCompletionTokens && d.OwnsHost(r.BaseURL))
		p.setTokenField(r.TokenField, r.Memory)
		p.noImages = !r.Images
		p.ep.idle = idle
		if r.Fallback {
			return &fallback{Provider: p, url: r.BaseURL, model: r.Name}, nil
		}
		return p, nil
	}
	return nil, fmt.Errorf("model: provider %q speaks wire %q, which agentls has no client for", d.Name, d.Wire)
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
