package agent

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/session"
)

// The model faults a turn meets, on each wire: what the turn ends with,
// how many requests it took, and what the session keeps. Retry-After is
// honoured (fractions of a second here, so the test does not sleep).
func TestModelFaultsEndTurnsTheSameOnBothWires(t *testing.T) {
	type fault struct {
		name     string
		turns    []modeltest.Turn
		stop     string
		requests int
		text     string   // the turn's text
		err      []string // what its error says
		kept     string   // "" or the interrupted reason the session ends with
	}
	faults := func(format string) []fault {
		firstText := 4 // the stream's event carrying the first text delta
		overloaded := 529
		if format == "openai" {
			firstText, overloaded = 2, 503
		}
		return []fault{
			{name: "429 with Retry-After, then an answer", stop: "end_turn", requests: 2, text: "answered",
				turns: []modeltest.Turn{{Status: 429, ErrorType: "rate_limit_error", RetryAfter: "0.01"}, {Text: "answered"}}},
			{name: "overloaded with Retry-After, then an answer", stop: "end_turn", requests: 3, text: "answered",
				turns: []modeltest.Turn{{Status: overloaded, ErrorType: "overloaded_error", RetryAfter: "0.01"}, {Status: 502, RetryAfter: "0.01"}, {Text: "answered"}}},
			{name: "5xx on every attempt: fails saying so", stop: "error", requests: 4, err: []string{"after 4 attempts"}, kept: session.InterruptedError,
				turns: []modeltest.Turn{{Status: 500, RetryAfter: "0.01"}, {Status: 500, RetryAfter: "0.01"}, {Status: 503, RetryAfter: "0.01"}, {Status: 500, RetryAfter: "0.01"}}},
			{name: "overloaded mid-stream after text: not retried, what streamed kept", stop: "error", requests: 1, text: "partial answer", err: []string{"overloaded"}, kept: session.InterruptedError,
				turns: []modeltest.Turn{{Text: "partial answer", ErrorType: "overloaded_error"}, {Text: "never asked for"}}},
			{name: "overloaded event before any text: retried", stop: "end_turn", requests: 2, text: "answered",
				turns: []modeltest.Turn{{ErrorType: "overloaded_error"}, {Text: "answered"}}},
			{name: "stream torn before any text: retried", stop: "end_turn", requests: 2, text: "answered",
				turns: []modeltest.Turn{{Text: "lost", Tear: 1}, {Text: "answered"}}},
			{name: "stream torn after text: not retried, what streamed kept", stop: "error", requests: 1, text: "Half ", err: []string{"stream ended"}, kept: session.InterruptedError,
				turns: []modeltest.Turn{{Deltas: []string{"Half ", "and the rest"}, Tear: firstText}, {Text: "never asked for"}}},
			{name: "401: not retried, says which key", stop: "error", requests: 1, err: []string{"authentication failed (401)", "AGENTLS_TEST_KEY"}, kept: session.InterruptedError,
				turns: []modeltest.Turn{{Status: 401, ErrorType: "authentication_error"}}},
		}
	}
	for _, format := range []string{"anthropic", "openai"} {
		for _, ft := range faults(format) {
			t.Run(format+"/"+ft.name, func(t *testing.T) {
				f := newFixture(t, format, nil)
				f.model.Script(ft.turns...)
				res := f.run(t, RunRequest{Prompt: "explain"}, TaskIO{})
				if string(res.StopReason) != ft.stop || res.Text != ft.text {
					t.Errorf("result %+v, want %s with text %q", res, ft.stop, ft.text)
				}
				for _, w := range ft.err {
					if !strings.Contains(res.Error, w) {
						t.Errorf("error %q lacks %q", res.Error, w)
					}
				}
				if n := len(f.model.ModelRequests(format)); n != ft.requests {
					t.Errorf("%d model requests, want %d", n, ft.requests)
				}
				msgs := assertStoredValid(t, f, res.SessionID)
				last := msgs[len(msgs)-1]
				if last.Interrupted != ft.kept || (ft.kept != "" && model.TextOf(last.Content) != ft.text) {
					t.Errorf("session ends with %+v, want interrupted %q with %q", last, ft.kept, ft.text)
				}
			})
		}
	}
}
