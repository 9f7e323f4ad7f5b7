package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agentls/agentls/agent/model/providers"
)

// Window is a model's context window and where the figure came from, for
// `agentls doctor` and the first turn's status line.
type Window struct {
	Tokens int
	From   string
	// Guessed is true when no one said it: the tables' figure for the
	// name, or the default for a name they do not know.
	Guessed bool
}

// EndpointURL is the URL requests of r are posted to (the key under which
// Memory keeps what that endpoint said).
func (r Resolved) EndpointURL() string {
	base := strings.TrimRight(r.BaseURL, "/")
	if r.Wire() == providers.Messages {
		return base + "/v1/messages"
	}
	return base + "/chat/completions"
}

// probeTimeout bounds each question to a server about its window.
const probeTimeout = 3 * time.Second

// FindWindow is the context window of r's model: the smallest of [model]
// context_window (configured > 0; the server is then not asked) and what
// the server says when asked (its provider's AskWindow, remembered in
// memory), or when it cannot be asked the remembered figure (which a
// context-exceeded error may also have set); with none of them, the tables'
// figure for the name or the default, a guess. client may be nil.
func FindWindow(ctx context.Context, r Resolved, configured int, memory *Memory, client *http.Client) Window {
	var said []Window
	if configured > 0 {
		said = append(said, Window{Tokens: configured, From: "[model] context_window"})
	}
	key := r.EndpointURL()
	// A configured window is not asked about (the user said it); a figure
	// remembered from the server (asked before, or its context-exceeded
	// error) still counts when smaller.
	n, from, err := 0, "", errNotAsked
	if configured <= 0 {
		n, from, err = AskWindow(ctx, r, client)
	}
	if err == nil {
		said = append(said, Window{Tokens: n, From: from})
		memory.Update(key, r.Name, func(m *Remembered) { m.Window, m.WindowFrom = n, from })
	} else if m := memory.Get(key, r.Name); m.Window > 0 {
		said = append(said, Window{Tokens: m.Window, From: "remembered: " + m.WindowFrom})
	}
	if len(said) > 0 {
		w := said[0]
		for _, s := range said[1:] {
			if s.Tokens < w.Tokens {
				w = s
			}
		}
		return w
	}
	if n, ok := providers.KnownWindow(r.Desc, r.Name); ok {
		return Window{Tokens: n, From: fmt.Sprintf("guessed from the model's name %q; set [model] context_window to the window your server runs with", r.Name), Guessed: true}
	}
	return Window{Tokens: providers.DefaultContextWindow, Guessed: true,
		From: fmt.Sprintf("a guess: agentls does not know the model %q and its server did not say; set [model] context_window", r.Name)}
}

// LearnWindow keeps a window a server named in a context-exceeded error,
// for the endpoint and model, so later turns and processes start from it.
func LearnWindow(memory *Memory, r Resolved, tokens int) string {
	from := serverName(r.BaseURL) + "'s context-exceeded error"
	memory.Update(r.EndpointURL(), r.Name, func(m *Remembered) { m.Window, m.WindowFrom = tokens, from })
	return from
}

// errNotAsked: the provider's server has no way to say its window.
var errNotAsked = errors.New("this server is not asked for its window")

// AskWindow asks r's server the context window it runs r's model with, in
// each of its provider's ways (providers.Provider.AskWindow) until one
// answers, and says how it found it. No key is sent.
func AskWindow(ctx context.Context, r Resolved, client *http.Client) (int, string, error) {
	d := r.desc()
	if len(d.AskWindow) == 0 {
		return 0, "", errNotAsked
	}
	c := noRedirects(client)
	base := strings.TrimRight(r.BaseURL, "/")
	root := strings.TrimSuffix(base, "/v1")
	errs := []string{}
	for _, name := range d.AskWindow {
		probe, ok := windowProbes[name]
		if !ok {
			return 0, "", fmt.Errorf("model: provider %s names window probe %q, which does not exist", d.Name, name)
		}
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		n, how, err := probe(pctx, c, base, root, r.Name)
		cancel()
		if err == nil && n > 0 {
			return n, fmt.Sprintf("%s at %s", how, serverName(base)), nil
		}
		if err == nil {
			err = errors.New("no figure in the answer")
		}
		errs = append(errs, name+": "+err.Error())
	}
	return 0, "", fmt.Errorf("the server did not say its window (%s)", strings.Join(errs, "; "))
}

// windowProbe asks one kind of server; base is the configured base URL,
// root the same without a final /v1.
type windowProbe func(ctx context.Context, c *http.Client, base, root, model string) (tokens int, how string, err error)

var windowProbes = map[string]windowProbe{
	// llama.cpp's llama-server: GET /props, default_generation_settings.n_ctx.
	"llamacpp-props": func(ctx context.Context, c *http.Client, base, root, model string) (int, string, error) {
		var v struct {
			Settings struct {
				NCtx int `json:"n_ctx"`
			} `json:"default_generation_settings"`
		}
		err := getJSON(ctx, c, http.MethodGet, root+"/props", nil, &v)
		return v.Settings.NCtx, "llama.cpp's /props n_ctx", err
	},
	// vLLM: GET /v1/models, the model's max_model_len.
	"vllm-models": func(ctx context.Context, c *http.Client, base, root, model string) (int, string, error) {
		var v struct {
			Data []struct {
				ID          string `json:"id"`
				Root        string `json:"root"`
				MaxModelLen int    `json:"max_model_len"`
			} `json:"data"`
		}
		if err := getJSON(ctx, c, http.MethodGet, base+"/models", nil, &v); err != nil {
			return 0, "", err
		}
		for _, m := range v.Data {
			if m.ID == model || m.Root == model {
				return m.MaxModelLen, "vLLM's /v1/models max_model_len", nil
			}
		}
		return 0, "", fmt.Errorf("no model %q in /v1/models", model)
	},
	// Ollama: the context a loaded model runs with (GET /api/ps
	// context_length), else its num_ctx parameter (POST /api/show), else
	// Ollama's own default, which is less than most models could take.
	"ollama-show": func(ctx context.Context, c *http.Client, base, root, model string) (int, string, error) {
		var ps struct {
			Models []struct {
				Name          string `json:"name"`
				Model         string `json:"model"`
				ContextLength int    `json:"context_length"`
			} `json:"models"`
		}
		if getJSON(ctx, c, http.MethodGet, root+"/api/ps", nil, &ps) == nil {
			for _, m := range ps.Models {
				if (m.Name == model || m.Model == model || m.Name == model+":latest") && m.ContextLength > 0 {
					return m.ContextLength, "Ollama's /api/ps context_length (the loaded model)", nil
				}
			}
		}
		var show struct {
			Parameters string         `json:"parameters"`
			ModelInfo  map[string]any `json:"model_info"`
		}
		if err := getJSON(ctx, c, http.MethodPost, root+"/api/show", map[string]string{"model": model}, &show); err != nil {
			return 0, "", err
		}
		for _, line := range strings.Split(show.Parameters, "\n") {
			var n int
			if f := strings.Fields(line); len(f) == 2 && f[0] == "num_ctx" {
				if _, err := fmt.Sscan(f[1], &n); err == nil && n > 0 {
					return n, "Ollama's /api/show num_ctx", nil
				}
			}
		}
		trained := 0
		for k, v := range show.ModelInfo {
			if n, ok := v.(float64); ok && strings.HasSuffix(k, ".context_length") {
				trained = int(n)
			}
		}
		if trained == 0 {
			return 0, "", errors.New("/api/show names no context length")
		}
		return min(trained, ollamaDefaultContext), fmt.Sprintf("Ollama's /api/show: the model takes %d, Ollama runs it with %d unless OLLAMA_CONTEXT_LENGTH or num_ctx says more", trained, ollamaDefaultContext), nil
	},
	// LM Studio: GET /api/v0/models, the loaded context, else the most.
	"lmstudio-models": func(ctx context.Context, c *http.Client, base, root, model string) (int, string, error) {
		var v struct {
			Data []struct {
				ID     string `json:"id"`
				Loaded int    `json:"loaded_context_length"`
				Max    int    `json:"max_context_length"`
			} `json:"data"`
		}
		if err := getJSON(ctx, c, http.MethodGet, root+"/api/v0/models", nil, &v); err != nil {
			return 0, "", err
		}
		for _, m := range v.Data {
			if m.ID == model {
				if m.Loaded > 0 {
					return m.Loaded, "LM Studio's /api/v0/models loaded_context_length", nil
				}
				return m.Max, "LM Studio's /api/v0/models max_context_length", nil
			}
		}
		return 0, "", fmt.Errorf("no model %q in /api/v0/models", model)
	},
	// OpenRouter: GET /api/v1/models, the model's context_length.
	"openrouter-models": func(ctx context.Context, c *http.Client, base, root, model string) (int, string, error) {
		var v struct {
			Data []struct {
				ID            string `json:"id"`
				ContextLength int    `json:"context_length"`
			} `json:"data"`
		}
		if err := getJSON(ctx, c, http.MethodGet, base+"/models", nil, &v); err != nil {
			return 0, "", err
		}
		for _, m := range v.Data {
			if m.ID == model {
				return m.ContextLength, "OpenRouter's model list context_length", nil
			}
		}
		return 0, "", fmt.Errorf("no model %q in the model list", model)
	},
}

// ollamaDefaultContext is the context Ollama runs a model with when
// neither OLLAMA_CONTEXT_LENGTH nor the model's num_ctx says otherwise.
const ollamaDefaultContext = 4096

// getJSON asks url (a body of in for POST) and decodes a 200 answer into out.
func getJSON(ctx context.Context, c *http.Client, method, url string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "agentls")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(out)
}
