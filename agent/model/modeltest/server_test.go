package modeltest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"go.uber.org/goleak"

	"github.com/agentls/agentls/agent/model/providers"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// post sends a request body to the fake server and returns the response.
func post(t *testing.T, ctx context.Context, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// endpoints are the wire formats the fake answers: every row of providers.Wires.
var endpoints = providers.Wires

// events reads a whole SSE body into its data payloads (and event names).
func events(t *testing.T, r io.Reader) (names, data []string) {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			names = append(names, strings.TrimPrefix(line, "event: "))
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		}
	}
	return names, data
}

func TestExhaustedScriptAnswers500SayingSo(t *testing.T) {
	for _, e := range endpoints {
		t.Run(string(e.Wire), func(t *testing.T) {
			s := modeltest.New(t)
			resp := post(t, context.Background(), s.URL()+e.Path, `{"model":"m","stream":true}`)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 500 || !strings.Contains(string(body), "script exhausted") {
				t.Errorf("status %d body %s", resp.StatusCode, body)
			}
			if rs := s.Requests(); len(rs) != 1 || rs[0].Format != e.Wire || rs[0].Path != e.Path {
				t.Errorf("recorded %+v", rs)
			}
		})
	}
}

func TestUnknownPathIs404AndConsumesNoTurn(t *testing.T) {
	s := modeltest.New(t)
	s.Script(modeltest.Turn{Text: "kept"})
	resp := post(t, context.Background(), s.URL()+"/v2/complete", `{}`)
	if resp.StatusCode != 404 || s.Pending() != 1 || len(s.ModelRequests("")) != 0 || len(s.Requests()) != 1 {
		t.Errorf("status %d pending %d", resp.StatusCode, s.Pending())
	}
}

func TestNonStreamRequestsGetAJSONMessage(t *testing.T) {
	turn := modeltest.Turn{Text: "hello", ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "read", Input: `{"path":"a"}`}}, InputTokens: 3, OutputTokens: 4}
	t.Run("anthropic", func(t *testing.T) {
		s := modeltest.New(t)
		s.Script(turn)
		resp := post(t, context.Background(), s.URL()+"/v1/messages", `{"model":"m","max_tokens":10,"messages":[]}`)
		var m struct {
			Type    string `json:"type"`
			Content []struct {
				Type, Text, ID, Name string
				Input                map[string]string
			} `json:"content"`
			StopReason string         `json:"stop_reason"`
			Usage      map[string]int `json:"usage"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		if m.Type != "message" || len(m.Content) != 2 || m.Content[0].Text != "hello" || m.Content[1].Input["path"] != "a" ||
			m.StopReason != "tool_use" || m.Usage["input_tokens"] != 3 || m.Usage["output_tokens"] != 4 {
			t.Errorf("message %+v", m)
		}
	})
	t.Run("openai", func(t *testing.T) {
		s := modeltest.New(t)
		s.Script(turn)
		resp := post(t, context.Background(), s.URL()+"/v1/chat/completions", `{"model":"m","messages":[]}`)
		var c struct {
			Object  string `json:"object"`
			Choices []struct {
				Message struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						ID       string `json:"id"`
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]any `json:"usage"` // prompt_tokens_details is an object
		}
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
			t.Fatal(err)
		}
		ch := c.Choices[0]
		if c.Object != "chat.completion" || ch.Message.Content != "hello" || ch.Message.ToolCalls[0].Function.Arguments != `{"path":"a"}` ||
			ch.FinishReason != "tool_calls" || c.Usage["total_tokens"] != float64(7) {
			t.Errorf("completion %+v", c)
		}
	})
}

func TestStreamsMakeClientsAccumulate(t *testing.T) {
	turn := modeltest.Turn{Text: "several words of text", ToolCalls: []modeltest.ToolCall{{Name: "grep", Input: `{"pattern":"func main"}`}}}
	t.Run("anthropic", func(t *testing.T) {
		s := modeltest.New(t)
		s.Script(turn)
		resp := post(t, context.Background(), s.URL()+"/v1/messages", `{"model":"m","stream":true}`)
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("content type %q", ct)
		}
		names, data := events(t, resp.Body)
		if names[0] != "message_start" || names[len(names)-1] != "message_stop" || len(names) != len(data) {
			t.Fatalf("events %v", names)
		}
		var texts, inputs []string
		for _, d := range data {
			var delta map[string]any
			json.Unmarshal([]byte(d), &struct {
				Delta *map[string]any `json:"delta"`
			}{&delta})
			switch delta["type"] {
			case "text_delta":
				texts = append(texts, delta["text"].(string))
			case "input_json_delta":
				inputs = append(inputs, delta["partial_json"].(string))
			}
		}
		checkSplit(t, texts, inputs, turn)
	})
	t.Run("openai", func(t *testing.T) {
		s := modeltest.New(t)
		s.Script(turn)
		resp := post(t, context.Background(), s.URL()+"/v1/chat/completions", `{"model":"m","stream":true}`)
		_, data := events(t, resp.Body)
		if data[len(data)-1] != "[DONE]" {
			t.Fatalf("last event %q, want [DONE]", data[len(data)-1])
		}
		var texts, inputs []string
		for _, d := range data[:len(data)-1] {
			var c struct {
				Choices []struct {
					Delta struct {
						Content   string `json:"content"`
						ToolCalls []struct {
							Function struct{ Arguments string }
						} `json:"tool_calls"`
					} `json:"delta"`
				} `json:"choices"`
			}
			if err := json.Unmarshal([]byte(d), &c); err != nil {
				t.Fatal(err)
			}
			for _, ch := range c.Choices {
				if ch.Delta.Content != "" {
					texts = append(texts, ch.Delta.Content)
				}
				for _, tc := range ch.Delta.ToolCalls {
					if tc.Function.Arguments != "" {
						inputs = append(inputs, tc.Function.Arguments)
					}
				}
			}
		}
		checkSplit(t, texts, inputs, turn)
	})
}

func checkSplit(t *testing.T, texts, inputs []string, turn modeltest.Turn) {
	t.Helper()
	if len(texts) < 2 || strings.Join(texts, "") != turn.Text {
		t.Errorf("text deltas %q: want several, joining to %q", texts, turn.Text)
	}
	if len(inputs) < 2 || strings.Join(inputs, "") != turn.ToolCalls[0].Input || json.Valid([]byte(inputs[0])) {
		t.Errorf("input chunks %q: want several, the first not valid JSON alone", inputs)
	}
}

func TestHangIsReleasedByClose(t *testing.T) {
	s := modeltest.New(t)
	s.Script(modeltest.Turn{Text: "never finished", Hang: true})
	resp := post(t, context.Background(), s.URL()+"/v1/messages", `{"model":"m","stream":true}`)
	br := bufio.NewReader(resp.Body)
	if line, _ := br.ReadString('\n'); line != "event: message_start\n" {
		t.Fatalf("first line %q", line)
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(br)
		done <- err
	}()
	s.Close() // the client never went away: Close must still end the handler
	<-done
}

func TestTearClosesTheConnectionAfterThatEvent(t *testing.T) {
	for _, w := range []struct{ path, first string }{{"/v1/messages", "event: message_start"}, {"/v1/chat/completions", "data: "}} {
		s := modeltest.New(t)
		s.Script(modeltest.Turn{Text: "never finished", Tear: 1})
		resp := post(t, context.Background(), s.URL()+w.path, `{"model":"m","stream":true}`)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.HasPrefix(string(body), w.first) || strings.Count(string(body), "data: ") != 1 {
			t.Errorf("%s: read %q, %v; want one event, then the connection torn (unexpected EOF)", w.path, body, err)
		}
	}
}

func TestClientCancelDuringDelayEndsTheHandler(t *testing.T) {
	s := modeltest.New(t)
	s.Script(modeltest.Turn{Delay: 1 << 62})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(s.Requests()) == 0 { // wait until the server holds the request
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/v1/messages", strings.NewReader(`{"stream":true}`))
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestConcurrentRequestsEachConsumeOneTurn(t *testing.T) {
	s := modeltest.New(t)
	const n = 16
	for i := range n {
		s.Script(modeltest.Turn{Text: "turn " + strings.Repeat("x", i)})
	}
	var wg sync.WaitGroup
	seen := make(chan string, n)
	for i := range n {
		wg.Go(func() {
			e := endpoints[i%len(endpoints)]
			resp, err := http.Post(s.URL()+e.Path, "application/json", strings.NewReader(`{"model":"m"}`))
			if err != nil {
				seen <- err.Error()
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			seen <- string(b)
		})
	}
	wg.Wait()
	close(seen)
	count := 0
	for b := range seen {
		if !strings.Contains(b, "turn ") {
			t.Errorf("an answer without its turn (consumed twice?): %s", b)
		}
		count++
	}
	if count != n || s.Pending() != 0 || len(s.Requests()) != n {
		t.Errorf("count %d pending %d requests %d", count, s.Pending(), len(s.Requests()))
	}
}

func TestChunkDelayStillDeliversTheWholeStream(t *testing.T) {
	s := modeltest.New(t)
	s.Script(modeltest.Turn{Text: "a b c", ChunkDelay: time.Millisecond})
	resp := post(t, context.Background(), s.URL()+"/v1/chat/completions", `{"model":"m","stream":true}`)
	_, data := events(t, resp.Body)
	if len(data) < 5 || data[len(data)-1] != "[DONE]" {
		t.Errorf("events %q", data)
	}
}

func TestErrorResponsesUseTheProvidersShape(t *testing.T) {
	cases := []struct {
		format, path, want string
	}{
		{"anthropic", "/v1/messages", `{"error":{"message":"slow down","type":"rate_limit_error"},"type":"error"}`},
		{"openai", "/v1/chat/completions", `{"error":{"code":"rate_limit_error","message":"slow down","param":null,"type":"rate_limit_error"}}`},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "slow down", RetryAfter: "3"})
			resp := post(t, context.Background(), s.URL()+c.path, `{"stream":true}`)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || string(body) != c.want {
				t.Errorf("status %d retry-after %q body %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
			}
		})
	}
}
