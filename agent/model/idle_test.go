package model

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// epOf is the endpoint of a client under test.
func epOf(p Provider) *endpoint {
	if o, ok := p.(*openai); ok {
		return &o.ep
	}
	return &p.(*anthropic).ep
}

// A stream that goes silent fails the attempt after the idle timeout and
// is retried as any failed attempt: before its first byte (a server that
// never answers), and after its headers and first event but before any
// text (a server that stopped mid-answer).
func TestASilentStreamIsGivenUpAndRetried(t *testing.T) {
	silences := []struct {
		name string
		turn modeltest.Turn
	}{
		{"before the first byte", modeltest.Turn{Delay: time.Hour}},
		{"after the first event", modeltest.Turn{Hang: true}},
	}
	for _, f := range formats() {
		for _, sl := range silences {
			t.Run(f.name+"/"+sl.name, func(t *testing.T) {
				s := modeltest.New(t)
				s.Script(sl.turn, modeltest.Turn{Text: "back again"})
				p, waits := f.open(f.baseOf(s))
				epOf(p).idle = 200 * time.Millisecond
				resp, text, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
				if err != nil {
					t.Fatalf("err = %v; want the retry to succeed", err)
				}
				if text != "back again" || resp.StopReason != "end_turn" {
					t.Errorf("text %q stop %q", text, resp.StopReason)
				}
				if n := len(s.ModelRequests("")); n != 2 || len(*waits) != 1 {
					t.Errorf("%d requests, %d backoffs; want 2 and 1", n, len(*waits))
				}
			})
		}
	}
}

// A server that stays silent on every attempt ends the call with an error
// that says it stalled, where, and which setting gives it longer.
func TestAStallOnEveryAttemptSaysSo(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Delay: time.Hour}, modeltest.Turn{Delay: time.Hour}, modeltest.Turn{Delay: time.Hour}, modeltest.Turn{Delay: time.Hour})
			p, _ := f.open(f.baseOf(s))
			epOf(p).idle = 100 * time.Millisecond
			_, _, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
			var st *StallError
			if !errors.As(err, &st) || st.Started {
				t.Fatalf("err = %v; want a StallError before the answer", err)
			}
			for _, want := range []string{"the stream stalled", "sent nothing for 100ms before answering", "[model] stream_idle_timeout"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if n := len(s.ModelRequests("")); n != 4 {
				t.Errorf("%d attempts; want the retry policy's 4", n)
			}
		})
	}
}

// Text already shown is never shown twice: a stall after it is an error,
// not a retry.
func TestAStallAfterTextIsNotRetried(t *testing.T) {
	for _, f := range formats() {
		t.Run(f.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Script(modeltest.Turn{Text: "half an answer", Hang: true}, modeltest.Turn{Text: "must not be asked"})
			p, _ := f.open(f.baseOf(s))
			epOf(p).idle = 200 * time.Millisecond
			_, text, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
			var st *StallError
			if !errors.As(err, &st) || !st.Started || !strings.Contains(err.Error(), "in the middle of its answer") {
				t.Fatalf("err = %v; want a StallError in the middle of the answer", err)
			}
			if text == "" || s.Pending() != 1 {
				t.Errorf("text %q, %d turns left; want the first delta shown and no retry", text, s.Pending())
			}
		})
	}
}

// A slow but steady stream is not a stall: the wait restarts with every
// byte that arrives.
func TestASlowSteadyStreamIsNotAStall(t *testing.T) {
	s := modeltest.New(t)
	words := strings.Fields(strings.Repeat("steady ", 40))
	for i := range words[1:] {
		words[i+1] = " " + words[i+1]
	}
	s.Script(modeltest.Turn{Deltas: words, ChunkDelay: 50 * time.Millisecond})
	f := formats()[1]
	p, _ := f.open(f.baseOf(s))
	epOf(p).idle = 600 * time.Millisecond // well past any gap, less than the whole answer takes
	_, text, err := stream(t, p, Request{Messages: []Message{userText("hi")}})
	if err != nil || text != strings.Join(words, "") {
		t.Fatalf("err %v text %q", err, text)
	}
}
