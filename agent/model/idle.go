package model

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// StallError says an answer sent nothing for the idle timeout ([model]
// stream_idle_timeout): the attempt was given up, and is retried as any
// failed attempt is.
type StallError struct {
	Provider string
	URL      string
	After    time.Duration
	Started  bool // some of the answer had come
}

// Error names the endpoint, the wait and the setting.
func (e *StallError) Error() string {
	when := "before answering"
	if e.Started {
		when = "in the middle of its answer"
	}
	return fmt.Sprintf("%s: the stream stalled: %s sent nothing for %s %s (a server still working on a long prompt may need longer: raise [model] stream_idle_timeout)",
		e.Provider, e.URL, e.After, when)
}

// idleWatch cancels one attempt when nothing arrives for d: from the
// request until the first byte, and between any two reads after.
type idleWatch struct {
	ctx    context.Context
	cancel context.CancelFunc
	d      time.Duration
	timer  *time.Timer

	mu      sync.Mutex
	fired   bool
	started bool
}

// watchIdle starts the watch on an attempt under ctx; d <= 0 watches
// nothing. stop must be called when the attempt ends.
func watchIdle(ctx context.Context, d time.Duration) *idleWatch {
	w := &idleWatch{d: d}
	w.ctx, w.cancel = context.WithCancel(ctx)
	if d > 0 {
		w.timer = time.AfterFunc(d, func() {
			w.mu.Lock()
			w.fired = true
			w.mu.Unlock()
			w.cancel()
		})
	}
	return w
}

func (w *idleWatch) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.cancel()
}

// stalled reports whether the watch gave the attempt up.
func (w *idleWatch) stalled() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

// err is the StallError of endpoint e.
func (w *idleWatch) err(e *endpoint) *StallError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return &StallError{Provider: e.provider, URL: e.url, After: w.d, Started: w.started}
}

// touch restarts the wait: something arrived.
func (w *idleWatch) touch() {
	if w.timer == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.fired {
		w.started = true
		w.timer.Reset(w.d)
	}
}

// reader passes r's bytes on, restarting the wait on each that arrive.
func (w *idleWatch) reader(r io.ReadCloser) io.ReadCloser {
	return &idleReader{ReadCloser: r, w: w}
}

type idleReader struct {
	io.ReadCloser
	w *idleWatch
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 {
		r.w.touch()
	}
	return n, err
}
