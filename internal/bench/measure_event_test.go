package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// stamps records when each text delta was written, by its content.
type stamps struct {
	mu sync.Mutex
	at map[string]time.Time
}

func (s *stamps) put(delta string, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at == nil {
		s.at = map[string]time.Time{}
	}
	s.at[delta] = t
}

func (s *stamps) get(delta string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.at[delta]
	return t, ok
}

// openaiDelta is the text delta an OpenAI chat completion chunk carries.
func openaiDelta(data []byte) string {
	var chunk struct {
		Choices []struct {
			Delta struct {
				Content string `json:"content"`
			} `json:"delta"`
		} `json:"choices"`
	}
	if json.Unmarshal(data, &chunk) != nil || len(chunk.Choices) == 0 {
		return ""
	}
	return chunk.Choices[0].Delta.Content
}

// stampingProxy forwards to the fake model and, as it writes and flushes
// each SSE event that carries a text delta, stamps the time: the moment the
// model's delta leaves for its reader, on this process's clock.
func stampingProxy(b *testing.B, upstream string, written *stamps) *httptest.Server {
	tr := &http.Transport{}
	b.Cleanup(tr.CloseIdleConnections)
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, upstream+r.URL.Path, bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := tr.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		flusher := w.(http.Flusher)
		rd := bufio.NewReader(resp.Body)
		var event bytes.Buffer
		delta := ""
		for {
			line, err := rd.ReadBytes('\n')
			event.Write(line)
			if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				delta = openaiDelta(data)
			}
			if len(bytes.TrimSpace(line)) == 0 || err != nil {
				w.Write(event.Bytes())
				flusher.Flush()
				if delta != "" {
					written.put(delta, time.Now())
				}
				event.Reset()
				delta = ""
			}
			if err != nil {
				return
			}
		}
	}))
	b.Cleanup(p.Close)
	return p
}

// deltaTurn is a turn whose text streams as words unique to round i.
func deltaTurn(i, words int) (modeltest.Turn, []string) {
	var all []string
	for j := 0; j < words; j++ {
		all = append(all, fmt.Sprintf("r%dw%d ", i, j))
	}
	all[len(all)-1] = strings.TrimSpace(all[len(all)-1])
	// Deltas spaced as a fast model streams them, so each is measured on
	// its own rather than queued behind the one before.
	return modeltest.Turn{Text: strings.Join(all, ""), ChunkDelay: 2 * time.Millisecond}, all
}

// BenchmarkEventLatency is figure 5: from the moment a text delta of the
// model's SSE stream is written to agentls to the moment the matching
// agent/event text notification is read by the client, median and p99.
// The baseline is the same stream read directly by a Go HTTP client in
// this process: one loopback hop, the least any reader can take.
func BenchmarkEventLatency(b *testing.B) {
	const words = 50
	model := modeltest.New(b)
	written := &stamps{}
	proxy := stampingProxy(b, model.URL(), written)
	arrived := &stamps{}
	h := newHome(b, proxy.URL, "")
	c := startAgentls(b, h, func(method string, params json.RawMessage, at time.Time) {
		if method != "agent/event" {
			return
		}
		var ev struct{ Type, Delta string }
		if json.Unmarshal(params, &ev) == nil && ev.Type == "text" {
			arrived.put(ev.Delta, at)
		}
	})
	c.initialize(h.root, true)
	round := 0
	latencies := func(deltas []string) []time.Duration {
		var out []time.Duration
		for _, d := range deltas {
			w, ok1 := written.get(d)
			a, ok2 := arrived.get(d)
			if !ok1 || !ok2 {
				b.Fatalf("delta %q: written %v, arrived %v", d, ok1, ok2)
			}
			out = append(out, a.Sub(w))
		}
		return out
	}
	direct := &http.Client{Transport: &http.Transport{}}
	b.Cleanup(direct.CloseIdleConnections)
	var subj, base []time.Duration
	viaAgentls := func() time.Duration {
		round++
		turn, deltas := deltaTurn(round, words)
		model.Script(turn)
		var res struct{ StopReason, Text, Error string }
		c.call("agent/run", map[string]any{"prompt": "stream some words"}, &res)
		if res.StopReason != "end_turn" || res.Text != turn.Text {
			b.Fatalf("agent/run ended %+v", res)
		}
		subj = append(subj, latencies(deltas)...)
		return 0
	}
	viaDirect := func() time.Duration {
		round++
		turn, deltas := deltaTurn(round, words)
		model.Script(turn)
		body := `{"model":"fake-model","stream":true,"messages":[{"role":"user","content":"stream some words"}]}`
		resp, err := direct.Post(proxy.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatalf("direct stream: %v", err)
		}
		defer resp.Body.Close()
		rd := bufio.NewReader(resp.Body)
		for {
			line, err := rd.ReadBytes('\n')
			if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				if d := openaiDelta(data); d != "" {
					arrived.put(d, time.Now())
				}
			}
			if err != nil {
				break
			}
		}
		base = append(base, latencies(deltas)...)
		return 0
	}
	Pair(2, viaAgentls, viaDirect) // warm both paths
	b.Run("deltas", func(b *testing.B) {
		subj, base = nil, nil
		Pair(b.N, viaAgentls, viaDirect)
		ReportDurations(b, "", subj, base)
		ReportPair(b, "p99-", UnitMicros, Micros(Percentile(subj, 99)), Micros(Percentile(base, 99)))
		b.ReportMetric(float64(len(subj)), "deltas")
	})
}
