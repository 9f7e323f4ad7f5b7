package model

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/providers"
)

// fakeServer answers the paths of one kind of server as it documents them.
func fakeServer(t *testing.T, answers map[string]string) string {
	return newRawServer(t, func(w http.ResponseWriter, r *http.Request) {
		body, ok := answers[r.Method+" "+r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	})
}

// Each server is asked its own way, and says where the figure came from.
func TestAskWindowAsksEachServerItsOwnWay(t *testing.T) {
	cases := []struct {
		name    string
		p       *providers.Provider
		answers map[string]string
		model   string
		want    int
		from    string
	}{
		{"llama.cpp", providers.LlamaCpp, map[string]string{"GET /props": `{"default_generation_settings":{"n_ctx":4096,"params":{}},"total_slots":1}`}, "qwen2.5-coder", 4096, "llama.cpp's /props n_ctx"},
		{"vLLM", providers.VLLM, map[string]string{"GET /v1/models": `{"object":"list","data":[{"id":"Qwen/Qwen2.5-Coder-7B-Instruct","object":"model","root":"Qwen/Qwen2.5-Coder-7B-Instruct","max_model_len":32768}]}`}, "Qwen/Qwen2.5-Coder-7B-Instruct", 32768, "vLLM's /v1/models max_model_len"},
		{"Ollama, a loaded model", providers.Ollama, map[string]string{"GET /api/ps": `{"models":[{"name":"qwen2.5-coder:7b","model":"qwen2.5-coder:7b","context_length":8192}]}`}, "qwen2.5-coder:7b", 8192, "Ollama's /api/ps context_length"},
		{"Ollama, num_ctx", providers.Ollama, map[string]string{"GET /api/ps": `{"models":[]}`, "POST /api/show": `{"parameters":"num_ctx                        16384\nstop                           \"<|im_end|>\"","model_info":{"qwen2.context_length":32768}}`}, "qwen2.5-coder:7b", 16384, "Ollama's /api/show num_ctx"},
		{"Ollama, its default", providers.Ollama, map[string]string{"POST /api/show": `{"parameters":"stop \"<|im_end|>\"","model_info":{"general.architecture":"qwen2","qwen2.context_length":32768}}`}, "qwen2.5-coder:7b", 4096, "the model takes 32768, Ollama runs it with 4096"},
		{"LM Studio", providers.LMStudio, map[string]string{"GET /api/v0/models": `{"object":"list","data":[{"id":"qwen2.5-7b-instruct","state":"loaded","max_context_length":32768,"loaded_context_length":8192}]}`}, "qwen2.5-7b-instruct", 8192, "loaded_context_length"},
		{"an unknown server that is llama.cpp", providers.Compatible, map[string]string{"GET /props": `{"default_generation_settings":{"n_ctx":2048}}`}, "whatever", 2048, "llama.cpp's /props n_ctx"},
		{"an unknown server that is Ollama", providers.Compatible, map[string]string{"POST /api/show": `{"parameters":"num_ctx 65536"}`}, "m", 65536, "Ollama's /api/show num_ctx"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := fakeServer(t, c.answers) + "/v1"
			r := Resolved{Provider: c.p.Name, Desc: c.p, Name: c.model, BaseURL: base}
			n, from, err := AskWindow(context.Background(), r, nil)
			if err != nil || n != c.want || !strings.Contains(from, c.from) || !strings.Contains(from, strings.TrimPrefix(strings.TrimSuffix(base, "/v1"), "http://")) {
				t.Errorf("AskWindow = %d, %q, %v; want %d from %q at the server's host", n, from, err, c.want, c.from)
			}
		})
	}
	// OpenRouter's list is under its base URL.
	base := fakeServer(t, map[string]string{"GET /api/v1/models": `{"data":[{"id":"qwen/qwen-2.5-coder-32b-instruct","context_length":32768}]}`}) + "/api/v1"
	if n, _, err := AskWindow(context.Background(), Resolved{Desc: providers.OpenRouter, Name: "qwen/qwen-2.5-coder-32b-instruct", BaseURL: base}, nil); n != 32768 || err != nil {
		t.Errorf("OpenRouter: %d, %v", n, err)
	}
	// A provider whose windows are in the tables is not asked.
	if _, _, err := AskWindow(context.Background(), Resolved{Desc: providers.OpenAI, Name: "gpt-4.1", BaseURL: base}, nil); err == nil {
		t.Error("OpenAI was asked")
	}
}

// The window is the smallest figure someone said; the server's answer is
// remembered, and used when the server cannot be asked; a window learned
// from a context-exceeded error is remembered too; with no one saying, the
// tables guess, and say so.
func TestFindWindowPrefersWhatTheServerSays(t *testing.T) {
	ctx := context.Background()
	mem := OpenMemory(t.TempDir())
	base := fakeServer(t, map[string]string{"GET /props": `{"default_generation_settings":{"n_ctx":4096}}`}) + "/v1"
	r := Resolved{Provider: "llamacpp", Desc: providers.LlamaCpp, Name: "qwen2.5-coder", BaseURL: base}

	if w := FindWindow(ctx, r, 0, mem, nil); w.Tokens != 4096 || w.Guessed || !strings.Contains(w.From, "/props") {
		t.Errorf("asked: %+v; want 4096 from /props, where the tables would guess 32768", w)
	}
	if w := FindWindow(ctx, r, 32768, mem, nil); w.Tokens != 4096 {
		t.Errorf("configured larger than the server runs: %+v; want the server's 4096", w)
	}
	if w := FindWindow(ctx, r, 2048, mem, nil); w.Tokens != 2048 || w.From != "[model] context_window" {
		t.Errorf("configured smaller: %+v", w)
	}
	down := r
	down.BaseURL = closedURL(t) + "/v1"
	if w := FindWindow(ctx, down, 0, mem, nil); !w.Guessed || w.Tokens != 32768 {
		t.Errorf("another endpoint, down, nothing remembered: %+v; want the name's guess", w)
	}
	mem.Update(down.EndpointURL(), down.Name, func(m *Remembered) { m.Window, m.WindowFrom = 3000, "llama.cpp's /props n_ctx at x" })
	if w := FindWindow(ctx, down, 0, mem, nil); w.Tokens != 3000 || !strings.HasPrefix(w.From, "remembered: ") {
		t.Errorf("down, remembered: %+v", w)
	}
	LearnWindow(mem, down, 1500)
	if w := FindWindow(ctx, down, 0, mem, nil); w.Tokens != 1500 || !strings.Contains(w.From, "context-exceeded error") {
		t.Errorf("learned from an error: %+v", w)
	}
	unknown := Resolved{Provider: "openai-compatible", Desc: providers.Compatible, Name: "brand-new", BaseURL: closedURL(t) + "/v1"}
	if w := FindWindow(ctx, unknown, 0, nil, nil); !w.Guessed || w.Tokens != providers.DefaultContextWindow || !strings.Contains(w.From, "set [model] context_window") {
		t.Errorf("unknown: %+v", w)
	}
}
