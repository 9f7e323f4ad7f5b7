package model

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
)

func TestRetriesOverloadAndRateLimitHonouringRetryAfter(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(
				modeltest.Turn{Status: 529, ErrorType: "overloaded_error", RetryAfter: "2"},
				modeltest.Turn{Status: 429, ErrorType: "rate_limit_error", RetryAfter: "7"},
				modeltest.Turn{Status: 503},
				modeltest.Turn{Text: "finally"},
			)
			p, waits := f.open(f.baseOf(s))
			resp, text, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
			if err != nil {
				t.Fatal(err)
			}
			if text != "finally" || resp.Content[0].Text != "finally" {
				t.Errorf("text %q", text)
			}
			if n := len(s.ModelRequests(f.name)); n != 4 {
				t.Errorf("%d requests, want 4", n)
			}
			if len(*waits) != 3 || (*waits)[0] != 2*time.Second || (*waits)[1] != 7*time.Second {
				t.Fatalf("waits %v, want [2s 7s backoff]", *waits)
			}
			if w := (*waits)[2]; w <= 0 || w > 2*time.Second {
				t.Errorf("backoff without Retry-After = %v, want in (0, 2s]", w)
			}
		})
	}
}

func TestGivesUpAfterFourAttemptsSayingWhy(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			s := modeltest.New(t)
			for range 4 {
				s.Script(modeltest.Turn{Status: 529, ErrorType: "overloaded_error", RetryAfter: "120"})
			}
			p, waits := f.open(f.baseOf(s))
			_, _, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
			var api *APIError
			if !errors.As(err, &api) || api.Status != 529 || api.Attempts != 4 {
				t.Fatalf("err = %v", err)
			}
			if !strings.Contains(err.Error(), "overloaded (529) after 4 attempts") {
				t.Errorf("message %q does not say what happened", err)
			}
			for _, w := range *waits {
				if w != 30*time.Second {
					t.Errorf("Retry-After 120 gave wait %v, want the 30s cap", w)
				}
			}
		})
	}
}

func TestErrorsSayWhatToDo(t *testing.T) {
	cases := []struct {
		name string
		turn modeltest.Turn
		want []string
	}{
		{"401 names the key variable", modeltest.Turn{Status: 401}, []string{"authentication failed (401)", "check AGENTLS_TEST_KEY"}},
		{"403 names the key variable", modeltest.Turn{Status: 403, ErrorType: "permission_error"}, []string{"authentication failed (403)", "check AGENTLS_TEST_KEY"}},
		{"404 model names the model and the setting", modeltest.Turn{Status: 404, ErrorType: "not_found_error"}, []string{`unknown model "fake-model" at http://127.0.0.1:`, "set [model] name"}},
		{"400 passes the provider's message", modeltest.Turn{Status: 400, ErrorType: "invalid_request_error"}, []string{"request rejected (400)", "Invalid request"}},
	}
	for _, f := range formats() {
		for _, c := range cases {
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				s := modeltest.New(t)
				s.Script(c.turn)
				p, waits := f.open(f.baseOf(s))
				_, _, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
				if err == nil {
					t.Fatal("no error")
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				// The server is named by its host, whatever its wire: a
				// llama.cpp answer must not read "openai said".
				host := strings.TrimPrefix(s.URL(), "http://")
				if !strings.HasPrefix(err.Error(), host+": ") || strings.Contains(err.Error(), "said") && !strings.Contains(err.Error(), "("+host+" said: ") {
					t.Errorf("error %q does not name the server %s", err, host)
				}
				if len(*waits) != 0 || len(s.Requests()) != 1 {
					t.Errorf("a %d was retried", c.turn.Status)
				}
			})
		}
	}
}

func TestConnectionRefusedNamesTheURL(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			base := closedURL(t)
			if f.name == "openai" {
				base += "/v1"
			}
			p, waits := f.open(base)
			_, _, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
			var ce *ConnectError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a ConnectError", err)
			}
			for _, w := range []string{base, "connection refused", "[model] base_url"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if len(*waits) != 0 {
				t.Errorf("refused connection was retried %d times", len(*waits))
			}
		})
	}
}

// closedURL is a loopback URL nothing listens on.
func closedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestMidStreamErrorEvent(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name+"/after text: no retry, the error says overloaded", func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Text: "partial answer", ErrorType: "overloaded_error"}, modeltest.Turn{Text: "unused"})
			p, waits := f.open(f.baseOf(s))
			_, text, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
			var api *APIError
			if !errors.As(err, &api) || api.Type != "overloaded_error" || !strings.Contains(err.Error(), "overloaded") {
				t.Fatalf("err = %v", err)
			}
			if text != "partial answer" || len(*waits) != 0 || s.Pending() != 1 {
				t.Errorf("streamed %q, waits %v, pending %d: text already shown must not be repeated by a retry", text, *waits, s.Pending())
			}
		})
		t.Run(f.name+"/before text: retried", func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{ErrorType: "overloaded_error"}, modeltest.Turn{Text: "second try"})
			p, waits := f.open(f.baseOf(s))
			_, text, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
			if err != nil || text != "second try" || len(*waits) != 1 {
				t.Fatalf("err %v, text %q, waits %v", err, text, *waits)
			}
		})
	}
}

func TestCancelMidStreamReturnsTheContextError(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Text: "first words then silence", Hang: true})
			p := f.openOn(s)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got strings.Builder
			_, err := p.Stream(ctx, Request{Messages: []Message{userText("hi")}}, func(d string) {
				got.WriteString(d)
				cancel() // the user pressed stop after the first words
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if got.String() != "first " {
				t.Errorf("streamed %q before the hang", got.String())
			}
		})
	}
}

func TestCancelWhileWaitingForHeaders(t *testing.T) {
	s := modeltest.New(t)
	s.Script(modeltest.Turn{Delay: time.Hour})
	p := formats()[0].openOn(s)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(s.Requests()) == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := p.Stream(ctx, Request{Messages: []Message{userText("hi")}}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestRetriesAConnectionDroppedBeforeTheAnswer(t *testing.T) {
	fixture := readFixture(t, "anthropic_text.sse")
	var calls atomic.Int32
	srv := newRawServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 { // drop the connection without answering
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(fixture)
	})
	p, waits := formats()[0].open(srv)
	resp, _, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 || len(*waits) != 1 || resp.StopReason != "end_turn" {
		t.Errorf("calls %d, waits %v, stop %q", calls.Load(), *waits, resp.StopReason)
	}
}

func TestInvalidToolInputBecomesEmptyObjectAndIsReported(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "bad", Name: "edit", Input: `{"path": "a.go", "text": `}, {ID: "arr", Name: "edit", Input: `[1,2]`}}})
			resp, _, err := stream(t, f.openOn(s), Request{Messages: []Message{userText("hi")}})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Content) != 2 {
				t.Fatalf("content %+v", resp.Content)
			}
			for i, want := range []string{`{"path": "a.go", "text": `, `[1,2]`} {
				b := resp.Content[i]
				if string(b.Input) != "{}" || b.InvalidInput != want {
					t.Errorf("block %d: input %s invalid %q, want {} and %q", i, b.Input, b.InvalidInput, want)
				}
			}
		})
	}
}

func TestWrongBaseURLSaysSo(t *testing.T) {
	s := modeltest.New(t)
	s.Script(modeltest.Turn{Text: "unused"})
	p, _ := formats()[1].open(s.URL()) // forgot the /v1
	_, _, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
	if err == nil || !strings.Contains(err.Error(), "not found (404)") || !strings.Contains(err.Error(), "usually end in /v1") {
		t.Fatalf("err = %v", err)
	}
	if s.Pending() != 1 {
		t.Error("a request to the wrong path consumed a turn")
	}
}

func TestRedirectsAreNotFollowedSoTheKeyStaysHome(t *testing.T) {
	var leaked atomic.Int32
	elsewhere := newRawServer(t, func(w http.ResponseWriter, r *http.Request) { leaked.Add(1) })
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			base := newRawServer(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, elsewhere+r.URL.Path, http.StatusTemporaryRedirect)
			})
			if f.name == "openai" {
				base += "/v1"
			}
			p, waits := f.open(base)
			_, _, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
			if err == nil || !strings.Contains(err.Error(), "redirects (307)") || !strings.Contains(err.Error(), elsewhere) {
				t.Fatalf("err = %v", err)
			}
			if leaked.Load() != 0 || len(*waits) != 0 {
				t.Errorf("the redirect was followed (%d requests elsewhere, %d retries)", leaked.Load(), len(*waits))
			}
		})
	}
}
