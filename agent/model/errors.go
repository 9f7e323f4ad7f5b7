package model

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
)

// APIError is an error answer from a model endpoint (an HTTP error status, or
// an error event in the middle of a stream). Its text says what to do.
type APIError struct {
	Provider string // "anthropic" | "openai"
	Status   int    // HTTP status; for a mid-stream error event, the status its type implies
	Type     string // the provider's error type or code, e.g. "overloaded_error"
	Message  string // the provider's message
	Hint     string // what a person can do, e.g. "check ANTHROPIC_API_KEY"
	Attempts int    // how many attempts were made before giving up
}

// Error says what failed, how often it was tried, and what to do.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s (%d)", e.Provider, e.what(), e.Status)
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.Hint != "" {
		b.WriteString(": " + e.Hint)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, " (%s said: %s)", e.Provider, e.Message)
	}
	return b.String()
}

func (e *APIError) what() string {
	switch {
	case e.Status == 401 || e.Status == 403:
		return "authentication failed"
	case e.Status == 404:
		return "not found"
	case e.Status == 429:
		return "rate limited"
	case e.Status == 529 || e.Type == "overloaded_error":
		return "overloaded"
	case e.Status >= 500:
		return "server error"
	case e.Status == 400 || e.Status == 422:
		return "request rejected"
	case e.Status == 413:
		return "request too large"
	}
	return "error"
}

// retryable reports whether the same request may succeed later.
func (e *APIError) retryable() bool {
	switch e.Status {
	case 429, 500, 502, 503, 504, 529:
		return true
	}
	return false
}

// ModelError says the endpoint does not know the model asked for.
type ModelError struct {
	Provider, Model, URL, Message string
	Hint                          string // extra advice, e.g. `ollama pull NAME`
}

// Error names the model, the endpoint and the setting to change.
func (e *ModelError) Error() string {
	s := fmt.Sprintf("%s: unknown model %q at %s: set [model] name", e.Provider, e.Model, e.URL)
	if e.Hint != "" {
		s += " " + e.Hint
	}
	if e.Message != "" {
		s += fmt.Sprintf(" (%s said: %s)", e.Provider, e.Message)
	}
	return s
}

// ConnectError says the endpoint could not be reached at all.
type ConnectError struct {
	Provider string
	URL      string // the URL that was tried
	Err      error
}

// Error names the URL tried and the setting to check.
func (e *ConnectError) Error() string {
	return fmt.Sprintf("%s: cannot reach %s: %s: is the server running? check [model] base_url", e.Provider, e.URL, short(e.Err))
}

// Unwrap returns the transport error.
func (e *ConnectError) Unwrap() error { return e.Err }

// short is the last, most specific part of a network error
// ("connection refused" rather than the whole dial chain).
func short(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "no such host " + dns.Name
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timed out"
	}
	return err.Error()
}

// transient reports whether a transport error before any response may go
// away on retry: a reset or a connection closed before the answer began.
// Refused connections are not retried: nothing is listening.
func transient(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.EPIPE)
}

// streamError is a failure while reading a stream that already began;
// retry says whether starting over could help (it is only done when no text
// reached the caller yet).
type streamError struct {
	err   error
	retry bool
}

func (e *streamError) Error() string { return e.err.Error() }
func (e *streamError) Unwrap() error { return e.err }

// brokenOff says a stream that was read for a while broke off (the
// connection closed or reset mid-body) before its end, which it names,
// rather than only "unexpected EOF".
func brokenOff(end string, err error) error {
	if !transient(err) {
		return err
	}
	return fmt.Errorf("stream ended before %s: the connection broke off mid-answer (%w)", end, err)
}
