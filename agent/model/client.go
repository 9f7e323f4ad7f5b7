package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// endpoint is what both providers share: where to post, how to name the
// key in errors, and how to retry.
type endpoint struct {
	// provider names the server in errors: its host (and port), so a
	// llama.cpp answer reads "127.0.0.1:8080 said", not a vendor's name.
	provider string
	url      string // the full URL posted to
	model    string
	keyEnv   string // the variable the key came from, for error hints ("" = no key)
	keySent  bool   // whether a key went with the request, for the 401 hint
	header   http.Header
	client   *http.Client
	retry    retryPolicy
	// idle is how long an answer may send nothing before the attempt is
	// given up ([model] stream_idle_timeout; 0: never).
	idle time.Duration
	// message decodes a whole JSON answer, for servers that ignore
	// "stream": true and answer application/json.
	message func(raw []byte) (*Response, error)
}

// serverName is how errors name the server at url: its host and port.
func serverName(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return raw
}

// maxAnswer bounds one answer's bytes: a broken or hostile endpoint
// streaming forever must not exhaust memory.
const maxAnswer = 64 << 20

// capReader fails once more than n bytes were read.
type capReader struct {
	r io.Reader
	n int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, fmt.Errorf("answer larger than %d MiB: giving up", maxAnswer>>20)
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	return n, err
}

// retryPolicy says how often and how long to wait before trying again.
type retryPolicy struct {
	attempts int           // total attempts, first included
	base     time.Duration // first backoff; doubles each time, with jitter
	max      time.Duration // cap on any one wait, Retry-After included
	sleep    func(ctx context.Context, d time.Duration) error
}

func defaultRetry() retryPolicy {
	return retryPolicy{attempts: 4, base: 500 * time.Millisecond, max: 30 * time.Second, sleep: sleepCtx}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// backoff is the wait before attempt n+1 (n >= 1): Retry-After when the
// server sent one, else exponential with jitter; capped either way.
func (p retryPolicy) backoff(n int, retryAfter time.Duration) time.Duration {
	d := retryAfter
	if d <= 0 {
		d = p.base << (n - 1)
		d = d/2 + rand.N(d/2+1)
	}
	return min(d, p.max)
}

// retryAfter reads Retry-After (seconds or an HTTP date) or OpenAI's
// retry-after-ms; 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// sink receives an answer as it streams: the text of the answer, and the
// model's reasoning. Either may be nil.
type sink struct {
	text, reasoning func(string)
}

func (s sink) say(d string) {
	if d != "" && s.text != nil {
		s.text(d)
	}
}

func (s sink) think(d string) {
	if d != "" && s.reasoning != nil {
		s.reasoning(d)
	}
}

// decoder reads one successful streamed response, passing its deltas to out.
type decoder func(body io.Reader, out sink) (*Response, error)

// post sends body and decodes the streamed answer, retrying what may
// succeed later — but never once text or reasoning has reached the caller,
// so the caller never sees a sentence twice.
func (e *endpoint) post(ctx context.Context, body []byte, decode decoder, onText, onReasoning func(string)) (*Response, error) {
	streamed := false
	pass := func(f func(string)) func(string) {
		return func(s string) {
			if s == "" {
				return
			}
			streamed = true
			if f != nil {
				f(s)
			}
		}
	}
	emit := sink{text: pass(onText), reasoning: pass(onReasoning)}
	for attempt := 1; ; attempt++ {
		resp, wait, err := e.attempt(ctx, body, decode, emit)
		if err == nil {
			e.stamp(resp)
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", e.provider, ctx.Err())
		}
		var api *APIError
		if errors.As(err, &api) {
			api.Attempts = attempt
			api.Provider = e.provider // a mid-stream error names the server too
		}
		if wait < 0 || streamed || attempt >= e.retry.attempts {
			return nil, err
		}
		if err := e.retry.sleep(ctx, e.retry.backoff(attempt, wait)); err != nil {
			return nil, fmt.Errorf("%s: %w", e.provider, err)
		}
	}
}

// stamp names this endpoint on the blocks that carry what a provider
// attached (reasoning, signatures, a tool call's extra fields), so that
// they go back to it and to no other (Block.Endpoint).
func (e *endpoint) stamp(resp *Response) {
	for i := range resp.Content {
		b := &resp.Content[i]
		if b.Type == "thinking" || b.Type == "redacted_thinking" || b.Type == "tool_use" && len(b.Extra) > 0 {
			b.Endpoint = e.identity()
		}
	}
}

// identity names the endpoint in stored sessions (Block.Endpoint): its
// URL without user info or query, so no credential a base_url might carry
// is written to disk.
func (e *endpoint) identity() string {
	u, err := url.Parse(e.url)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// attempt makes one request. wait is negative when retrying cannot help,
// else the server's Retry-After (0 when it sent none).
func (e *endpoint) attempt(ctx context.Context, body []byte, decode decoder, emit sink) (*Response, time.Duration, error) {
	watch := watchIdle(ctx, e.idle)
	defer watch.stop()
	req, err := http.NewRequestWithContext(watch.ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return nil, -1, fmt.Errorf("%s: bad base_url: %w", e.provider, err)
	}
	for k, v := range e.header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", "agentls")
	resp, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, -1, ctx.Err()
		}
		if watch.stalled() {
			return nil, 0, watch.err(e)
		}
		cerr := &ConnectError{Provider: e.provider, URL: e.url, Err: err}
		if transient(err) {
			return nil, 0, cerr
		}
		return nil, -1, cerr
	}
	defer resp.Body.Close()
	// Closing the body on cancel (or a stall) unblocks a read stuck on a
	// silent server. The closure holds the body itself: resp.Body is
	// replaced by the watching reader below, on this goroutine.
	raw := resp.Body
	stop := context.AfterFunc(watch.ctx, func() { raw.Close() })
	defer stop()
	resp.Body = watch.reader(raw)
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return nil, -1, fmt.Errorf("%s: %s redirects (%d) to %q: redirects are not followed (the key would go along): set [model] base_url to the final address", e.provider, e.url, resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if watch.stalled() {
			return nil, 0, watch.err(e)
		}
		err := e.statusError(resp.StatusCode, raw)
		var api *APIError
		if errors.As(err, &api) && api.retryable() {
			return nil, retryAfter(resp.Header, time.Now()), err
		}
		return nil, -1, err
	}
	out, err := e.readAnswer(resp, decode, emit)
	if err == nil {
		return out, 0, nil
	}
	if ctx.Err() != nil {
		return nil, -1, ctx.Err()
	}
	if watch.stalled() {
		return nil, 0, &streamError{err: watch.err(e), retry: true}
	}
	var se *streamError
	if errors.As(err, &se) && se.retry {
		return nil, 0, err
	}
	return nil, -1, err
}

// readAnswer decodes a 200 answer: normally an event stream, but a whole
// JSON answer from a server that ignored "stream": true is read too.
func (e *endpoint) readAnswer(resp *http.Response, decode decoder, emit sink) (*Response, error) {
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "text/html") {
		return nil, fmt.Errorf("%s: %s answered with a web page (%s), not an event stream: check [model] base_url", e.provider, e.url, ct)
	}
	body := &capReader{r: resp.Body, n: maxAnswer}
	if !strings.HasPrefix(ct, "application/json") || e.message == nil {
		return decode(body, emit)
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, &streamError{err: fmt.Errorf("%s: %w", e.provider, err), retry: true}
	}
	out, err := e.message(raw)
	if err != nil {
		return nil, err
	}
	for _, b := range out.Content {
		switch b.Type {
		case "text":
			emit.say(b.Text)
		case "thinking":
			emit.think(b.Thinking)
		}
	}
	return out, nil
}

// errorBody is the union of the error shapes endpoints send: Anthropic's
// {"type":"error","error":{...}}, OpenAI's {"error":{...,"code"}}, and the
// {"error":"text"} of some compatible servers.
type errorBody struct {
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
}

type errorDetail struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Code    any    `json:"code"`
	// Metadata (OpenRouter) names the provider behind it and carries its
	// own error body, which says what was wrong ("Provider returned
	// error" does not).
	Metadata struct {
		Raw          string `json:"raw"`
		ProviderName string `json:"provider_name"`
	} `json:"metadata"`
}

// parseError extracts the provider's error type and message from a body.
// Google's OpenAI-compatible endpoint wraps its error in a one-element
// array ([{"error": {...}}]).
func parseError(raw []byte) (typ, msg string) {
	var list []json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' && json.Unmarshal(t, &list) == nil && len(list) > 0 {
		raw = list[0]
	}
	var b errorBody
	if json.Unmarshal(raw, &b) == nil {
		var d errorDetail
		var s string
		switch {
		case json.Unmarshal(b.Error, &d) == nil && (d.Message != "" || d.Type != ""):
			typ = d.Type
			if c, ok := d.Code.(string); ok && c != "" {
				typ = c
			}
			if d.Metadata.Raw != "" {
				_, inner := parseError([]byte(d.Metadata.Raw))
				who := d.Metadata.ProviderName
				if who == "" {
					who = "the provider behind it"
				}
				return typ, d.Message + " (" + who + ": " + inner + ")"
			}
			return typ, d.Message
		case json.Unmarshal(b.Error, &s) == nil && s != "":
			return "", s
		case b.Message != "":
			return "", b.Message
		}
	}
	msg = strings.TrimSpace(string(raw))
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return "", msg
}

// statusError turns an HTTP error answer into an error that says what to do.
func (e *endpoint) statusError(status int, raw []byte) error {
	typ, msg := parseError(raw)
	api := &APIError{Provider: e.provider, Status: status, Type: typ, Message: msg}
	lower := strings.ToLower(typ + " " + msg)
	switch {
	case status == 401 || status == 403:
		switch {
		case e.keyEnv != "" && !e.keySent:
			api.Hint = "set " + e.keyEnv + " (no key was sent: it is empty)"
		case e.keyEnv != "":
			api.Hint = "check " + e.keyEnv
		default:
			api.Hint = "the endpoint wants a key: set [model] api_key_env to the variable holding it"
		}
	case typ == "model_not_found" || status == 404 && typ == "not_found_error" || (status == 404 || status == 400) && modelMissing(lower):
		return &ModelError{Provider: e.provider, Model: e.model, URL: e.url, Message: msg}
	case status == 404:
		api.Hint = "nothing answers at " + e.url + ": check [model] base_url"
		if strings.HasSuffix(e.url, "/chat/completions") && !strings.Contains(e.url, "/v1/") {
			api.Hint += " (OpenAI-compatible base URLs usually end in /v1)"
		}
	}
	return api
}

// modelMissing recognizes the "no such model" messages of OpenAI-compatible
// servers (Ollama: `model "x" not found, try pulling it first`).
func modelMissing(lower string) bool {
	if !strings.Contains(lower, "model") {
		return false
	}
	for _, p := range []string{"not found", "not_found", "does not exist", "unknown model", "no such model"} {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}
