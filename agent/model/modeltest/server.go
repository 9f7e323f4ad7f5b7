// Package modeltest is a fake model endpoint for tests: a real HTTP server on
// loopback that speaks the Anthropic Messages and OpenAI chat completions wire
// formats (SSE streaming included), answers from a per-test script, and
// records every request so tests can assert what the model was sent.
//
// It never reaches a real provider and never imports the model package, so
// any package's tests (the model package's own included) can use it.
package modeltest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/providers"
)

// Turn is one scripted model answer. The zero Turn is an empty end_turn.
type Turn struct {
	Text string // assistant text, streamed as several deltas
	// Thinking is the model's reasoning before the text: an Anthropic
	// thinking block with its signature, or on the chat completions wire
	// deltas of the vendor's reasoning field (reasoning_content; Groq and
	// OpenRouter: reasoning).
	Thinking string
	// Refusal is the model declining: OpenAI's delta.refusal deltas (content
	// null, finish_reason "stop"); on Anthropic, text then stop_reason
	// "refusal".
	Refusal    string
	ToolCalls  []ToolCall // tool calls after the text
	Status     int        // non-zero and not 200: an error response in the provider's format
	ErrorType  string     // e.g. "overloaded_error"; with Status 0 or 200: an error event mid-stream, after the text
	RetryAfter string     // Retry-After header value on an error
	// ErrorMessage is the error's message; empty: a typical one for ErrorType.
	ErrorMessage string
	Delay        time.Duration // before the response starts
	ChunkDelay   time.Duration // between SSE events
	Hang         bool          // start streaming, then block until the client goes away
	// Tear, when > 0, closes the connection right after the stream's
	// Tear-th event: a torn stream, with no terminal event (the first event
	// is message_start on Anthropic, the role chunk on OpenAI; the first
	// text delta is the 4th and the 2nd).
	Tear int
	// Deltas, when set, is the assistant text streamed as exactly these
	// pieces (leave Text empty: the text is their join), so a test can cut
	// a word, say a token, where it likes.
	Deltas []string

	// StopReason overrides the stop reason, in Anthropic's terms ("end_turn",
	// "tool_use", "max_tokens"); OpenAI gets the matching finish_reason.
	StopReason string
	// InputTokens and OutputTokens override the reported usage; when zero
	// they are derived from the sizes of the request and the answer.
	InputTokens, OutputTokens int
}

// ToolCall is one tool call the fake model makes. An empty ID gets a
// generated one; an empty Input is sent as {}. Input is sent as given, so a
// test can send invalid JSON on purpose.
type ToolCall struct{ ID, Name, Input string }

// Request is one recorded HTTP request.
type Request struct {
	Format providers.Wire // the wire format of a model request; "" for another path
	Method string
	Path   string
	Header http.Header
	Body   []byte // raw JSON as sent
}

// Server is a running fake model endpoint. It is safe for concurrent use.
type Server struct {
	t    testing.TB
	srv  *httptest.Server
	stop chan struct{} // closed at cleanup: releases hanging handlers

	mu       sync.Mutex
	turns    []Turn
	reqs     []Request
	ids      int
	limits   Limits
	answerFn func(Request) (Turn, bool)
	cache    cacheState
	billing  Billing
	// windowAsks counts the requests to windowPaths.
	windowAsks int
	vendor     Vendor
	// signatures are the thought signatures handed out (Gemini), and the
	// thinking signatures (Anthropic): a request may only echo these.
	signatures map[string]bool
}

// New starts a fake model endpoint on 127.0.0.1 (closed by t.Cleanup). It
// speaks Anthropic Messages (POST /v1/messages) and OpenAI chat completions
// (POST /v1/chat/completions), with SSE streaming when the request has
// "stream": true, in the providers' documented wire formats.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, stop: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// URL is "http://127.0.0.1:PORT": Anthropic's base_url is URL(), OpenAI's is
// URL()+"/v1".
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server, releasing any handler still hanging or waiting. It
// runs at test cleanup; calling it earlier makes later requests fail to
// connect (a way to test "connection refused").
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.stop:
		s.mu.Unlock()
		return
	default:
		close(s.stop)
	}
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Script appends turns. Each model request consumes the next turn, whatever
// its wire format. With the script exhausted the server answers HTTP 500
// with an error body saying so.
func (s *Server) Script(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Answer sets a function that sees every model request before the script
// does: when it returns true, its turn answers the request and the script
// is left as it was. Tests use it for requests whose moment they cannot
// know in advance (a compaction's summary request, say).
func (s *Server) Answer(f func(Request) (Turn, bool)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answerFn = f
}

// Pending is the number of scripted turns not yet consumed.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns)
}

// Requests returns every request so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.reqs))
	copy(out, s.reqs)
	return out
}

// ModelRequests returns the recorded model requests of one wire format,
// named by the wire (providers.Messages) or by a provider speaking it
// ("anthropic", "openai", "ollama"), or of every format when name is "".
func (s *Server) ModelRequests(name string) []Request {
	want := providers.Wire(name)
	if p, ok := providers.Lookup(name); ok {
		want = p.Wire
	}
	var out []Request
	for _, r := range s.Requests() {
		if r.Format != "" && (name == "" || r.Format == want) {
			out = append(out, r)
		}
	}
	return out
}

// formatOf is the wire format of a request, by the paths of
// providers.Wires. Strict paths: a client with a wrong base_url must fail
// here as it would against the real endpoint.
func formatOf(method, path string) providers.Wire {
	if method != http.MethodPost {
		return ""
	}
	for _, w := range providers.Wires {
		if w.Path == path {
			return w.Wire
		}
	}
	return ""
}

// windowPaths are where local servers say their context window
// (llama.cpp's /props, Ollama's /api/ps and /api/show, LM Studio's
// /api/v0/models), which agentls asks before a first turn. The fake is an
// OpenAI-compatible server that is none of them: it answers 404, as such a
// server does, and keeps these out of Requests, so a test counting model
// requests counts only those (WindowQuestions has them).
var windowPaths = map[string]bool{"/props": true, "/api/ps": true, "/api/show": true, "/api/v0/models": true}

// WindowQuestions is how many requests asked the server for its context
// window (see windowPaths).
func (s *Server) WindowQuestions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.windowAsks
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if windowPaths[r.URL.Path] {
		s.mu.Lock()
		s.windowAsks++
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	format := formatOf(r.Method, r.URL.Path)
	var lin linear
	if format != "" {
		var marks int
		lin, marks = linearize(format, body)
		ref := s.checkLimits(format, body, len(body)/4+1, marks)
		if ref == nil {
			ref = checkImages(format, body)
		}
		if ref == nil {
			ref = s.checkVendor(format, body)
		}
		if ref == nil {
			ref = checkThinking(format, body)
		}
		if ref == nil {
			ref = checkHistory(format, body)
		}
		if ref != nil {
			// Refused as the real API would, before any scripted turn is used.
			s.mu.Lock()
			s.reqs = append(s.reqs, Request{Format: format, Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
			vendor, window := s.vendor, s.limits.ContextWindow
			s.mu.Unlock()
			if vendor == VLLM && format == providers.ChatCompletions && ref.context {
				// vLLM before 0.10: the stream begins, then its error.
				info, _ := parseBody(body)
				sw := &sseWriter{w: w, ctx: r.Context(), stop: s.stop}
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				sw.event("", mustJSON(map[string]any{"id": "chatcmpl-modeltest", "object": "chat.completion.chunk", "created": 1700000000, "model": info.model,
					"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": ""}, "logprobs": nil, "finish_reason": nil}}}))
				sw.event("", vllmError(fmt.Sprintf("The decoder prompt (length %d) is longer than the maximum model length of %d.", len(body)/4+1, window), 400))
				sw.event("", []byte("[DONE]"))
				return
			}
			writeRefusal(w, format, ref)
			return
		}
	}
	rec := Request{Format: format, Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	s.mu.Lock()
	s.reqs = append(s.reqs, rec)
	answerFn := s.answerFn
	s.mu.Unlock()
	var turn Turn
	answered := false
	if format != "" && answerFn != nil {
		turn, answered = answerFn(rec)
	}
	s.mu.Lock()
	exhausted := !answered && len(s.turns) == 0
	if format != "" && !answered && !exhausted {
		turn = s.turns[0]
		s.turns = s.turns[1:]
	}
	s.mu.Unlock()

	if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
		writeModels(w)
		return
	}
	if format == "" {
		http.Error(w, fmt.Sprintf("modeltest: no endpoint %s %s (expected POST /v1/messages or POST /v1/chat/completions)", r.Method, r.URL.Path), http.StatusNotFound)
		return
	}
	if exhausted {
		turn = Turn{Status: http.StatusInternalServerError, ErrorType: "api_error"}
		s.writeError(w, format, turn, "modeltest: script exhausted: the test scripted fewer turns than the client made model requests")
		return
	}
	if !s.wait(r.Context(), turn.Delay) {
		return
	}
	if turn.Status != 0 && turn.Status != http.StatusOK {
		s.writeError(w, format, turn, turn.ErrorMessage)
		return
	}
	req, err := parseBody(body)
	if err != nil {
		turn = Turn{Status: http.StatusBadRequest, ErrorType: "invalid_request_error"}
		s.writeError(w, format, turn, "modeltest: request body is not JSON: "+err.Error())
		return
	}
	ans := s.answer(turn, format, len(body))
	if thinkingEnabled(format, body) && ans.Thinking == "" {
		ans.Thinking = defaultThinking
	}
	s.issue(&ans)
	s.bill(&ans, format, lin)
	if !req.stream {
		if format == providers.Messages {
			writeJSON(w, anthropicMessage(ans, req.model))
		} else {
			writeJSON(w, openaiCompletion(ans, req.model))
		}
		return
	}
	sw := &sseWriter{w: w, ctx: r.Context(), stop: s.stop, delay: turn.ChunkDelay, tear: turn.Tear}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if format == providers.Messages {
		streamAnthropic(sw, ans, req.model)
	} else {
		streamOpenAI(sw, ans, req.model)
	}
}

// wait sleeps d unless the client goes away or the server stops first.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
	case <-s.stop:
	}
	return false
}

// answer is a turn made concrete: ids assigned, inputs defaulted, usage set.
type answer struct {
	Turn
	calls  []ToolCall
	cache  cacheUsage
	vendor Vendor
}

// textDeltas are the pieces the answer's text streams as.
func (a *answer) textDeltas() []string {
	if len(a.Deltas) > 0 {
		return a.Deltas
	}
	return textDeltas(a.Text)
}

// bill charges an answered request to the prompt cache and the totals.
func (s *Server) bill(a *answer, format providers.Wire, l linear) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a.cache = s.cache.bill(format, l)
	if a.cache.read+a.cache.write > a.InputTokens { // an overridden InputTokens
		a.cache = cacheUsage{}
	}
	b := &s.billing
	b.Requests++
	b.Input += a.InputTokens
	b.CacheRead += a.cache.read
	b.CacheWrite += a.cache.write
	b.Output += a.OutputTokens
	b.MaxInput = max(b.MaxInput, a.InputTokens)
	b.MaxCacheControl = max(b.MaxCacheControl, len(l.breakpoints))
	b.MaxToolCount = max(b.MaxToolCount, l.tools)
}

func (s *Server) answer(t Turn, format providers.Wire, reqSize int) answer {
	a := answer{Turn: t}
	if len(t.Deltas) > 0 {
		a.Text = strings.Join(t.Deltas, "")
	}
	s.mu.Lock()
	for _, c := range t.ToolCalls {
		s.ids++
		if c.ID == "" {
			if format == providers.Messages {
				c.ID = fmt.Sprintf("toolu_modeltest%03d", s.ids)
			} else {
				c.ID = fmt.Sprintf("call_modeltest%03d", s.ids)
			}
		}
		if strings.TrimSpace(c.Input) == "" {
			c.Input = "{}"
		}
		a.calls = append(a.calls, c)
	}
	s.mu.Unlock()
	if a.StopReason == "" {
		a.StopReason = "end_turn"
		if len(a.calls) > 0 {
			a.StopReason = "tool_use"
		}
		if a.Refusal != "" {
			a.StopReason = "refusal"
		}
	}
	if a.InputTokens == 0 {
		a.InputTokens = reqSize/4 + 1
	}
	if a.OutputTokens == 0 {
		n := len(a.Text) + len(t.Thinking) + len(t.Refusal)
		for _, c := range a.calls {
			n += len(c.Name) + len(c.Input)
		}
		a.OutputTokens = n/4 + 1
	}
	return a
}

// sseWriter writes server-sent events, flushing each and pausing between
// them; it stops writing once the client has gone away.
type sseWriter struct {
	w     http.ResponseWriter
	ctx   context.Context
	stop  chan struct{}
	delay time.Duration
	tear  int // close the connection after this many events (Turn.Tear)
	n     int
	dead  bool
}

// event writes one event; name may be "" (OpenAI sends data-only events).
func (e *sseWriter) event(name string, data []byte) {
	if e.dead {
		return
	}
	if e.n > 0 && e.delay > 0 {
		tm := time.NewTimer(e.delay)
		select {
		case <-tm.C:
		case <-e.ctx.Done():
			e.dead = true
		case <-e.stop:
			e.dead = true
		}
		tm.Stop()
		if e.dead {
			return
		}
	}
	e.n++
	var b bytes.Buffer
	if name != "" {
		fmt.Fprintf(&b, "event: %s\n", name)
	}
	fmt.Fprintf(&b, "data: %s\n\n", data)
	if _, err := e.w.Write(b.Bytes()); err != nil {
		e.dead = true
		return
	}
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
	if e.tear > 0 && e.n == e.tear {
		// Ends the handler and closes the connection mid-body, as a
		// proxy or a crashed server does.
		panic(http.ErrAbortHandler)
	}
}

// hang blocks until the client goes away or the server stops.
func (e *sseWriter) hang() {
	select {
	case <-e.ctx.Done():
	case <-e.stop:
	}
	e.dead = true
}
