package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Call calls a namespaced tool. It never blocks past the server's call
// timeout (or, when the server has to be restarted first, its connect and
// list timeouts); failures come back as a Result with IsError set and text
// "ERROR: <server>: <what happened>".
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) Result {
	r.mu.Lock()
	key, ok := r.names[name]
	r.mu.Unlock()
	if !ok {
		return Result{Text: fmt.Sprintf("ERROR: unknown tool %q: no MCP server offers it", name), IsError: true}
	}
	if t := bytes.TrimSpace(args); len(t) > 0 && (t[0] != '{' || !json.Valid(t)) {
		return errorResult(key.Server, fmt.Sprintf("arguments for %s must be a JSON object, got %.80q", name, t))
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = nil
	}
	r.mu.Lock()
	srv := r.servers[key.Server]
	r.mu.Unlock()
	c, fail := r.ready(ctx, srv)
	if c == nil {
		return fail
	}
	return r.callOn(ctx, srv, c, key.Tool, args)
}

// outputSchema is the resolved outputSchema of srv's tool, or nil.
func (r *Registry) outputSchema(srv *server, tool string) *jsonschema.Resolved {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range srv.tools {
		if d.orig == tool {
			return d.output
		}
	}
	return nil
}

// ready returns the live connection of srv, restarting a failed server on
// use within its bounded retries and backoff.
func (r *Registry) ready(ctx context.Context, srv *server) (*conn, Result) {
	name := srv.cfg.Name
	restarted := 0
	for {
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return nil, errorResult(name, "the MCP registry is shut down")
		}
		switch srv.state {
		case Connected:
			c := srv.conn
			r.mu.Unlock()
			return c, Result{}
		case Connecting:
			ch := srv.dialing
			r.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, errorResult(name, "cancelled while the server was connecting")
			}
		case Failed:
			if restarted > 0 {
				err := srv.err
				r.mu.Unlock()
				return nil, errorResult(name, fmt.Sprintf("restart %d of %d failed: %s", restarted, r.opts.MaxRestarts, err))
			}
			if !r.restartableLocked(srv) {
				err := srv.err
				r.mu.Unlock()
				return nil, errorResult(name, fmt.Sprintf("failed: %s; gave up after %d restarts (restart it from the server list)", err, r.opts.MaxRestarts))
			}
			if wait := time.Until(srv.retryAt); wait > 0 {
				err := srv.err
				r.mu.Unlock()
				return nil, errorResult(name, fmt.Sprintf("failed: %s; next restart attempt in %s", err, wait.Round(time.Millisecond)))
			}
			if st := r.gate(srv); st != "" {
				srv.state = st
				r.notifyLocked()
				r.mu.Unlock()
				return nil, errorResult(name, fmt.Sprintf("failed, and may not be restarted: %s", st))
			}
			srv.restarts++
			restarted = srv.restarts
			srv.retryAt = time.Now().Add(r.opts.RestartBackoff << (2 * (srv.restarts - 1)))
			r.opts.Logf("mcp: %s: restarting on use (attempt %d of %d) after: %s", name, restarted, r.opts.MaxRestarts, srv.err)
			r.dialLocked(ctx, srv)
			r.mu.Unlock()
		default:
			st := srv.state
			r.mu.Unlock()
			return nil, errorResult(name, fmt.Sprintf("the server is not running (%s)", st))
		}
	}
}

// callOn makes one call on a live connection and explains any failure.
func (r *Registry) callOn(ctx context.Context, srv *server, c *conn, tool string, args json.RawMessage) Result {
	name := srv.cfg.Name
	timeout := srv.cfg.EffectiveCallTimeout()
	cctx, cancelCause := context.WithCancelCause(ctx)
	cancel := func() { cancelCause(context.Canceled) }
	defer cancel()
	deadline := r.newDeadline(timeout, func() { cancelCause(errCallTimeout) })
	defer deadline.stop()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	params := &sdk.CallToolParams{Name: tool}
	if args != nil {
		params.Arguments = args
	}
	if l := listenerOf(ctx); l != nil {
		t := &trackedListener{inner: l, more: make(chan struct{}, 1)}
		var elicit func(context.Context, Elicitation) ElicitAnswer
		if l.Elicit != nil {
			// The user's time to answer does not count against call_timeout
			// (approval_timeout bounds it).
			elicit = func(ectx context.Context, e Elicitation) ElicitAnswer {
				deadline.pause()
				defer deadline.resume()
				return l.Elicit(ectx, e)
			}
		}
		tracked := &CallListener{Progress: t.progress, Log: l.Log, Elicit: elicit}
		token := c.calls.add(tracked)
		defer c.calls.remove(token)
		// A 2026-07-28 server's input request is fulfilled under this
		// call's context: onElicit finds the very call that asked.
		cctx = context.WithValue(cctx, listenerKey{}, tracked)
		// The SDK hands a response over as it arrives but queues
		// notifications for a handler goroutine, so progress the server
		// sent just before its result may still be on its way.
		defer t.settle(progressSettle)
		params.SetProgressToken(token)
	}
	c.withLogLevel(params)
	res, err := c.session.CallTool(cctx, params)
	if l, _ := cctx.Value(listenerKey{}).(*CallListener); l != nil && isURLRequired(err) {
		// The server needs the user on a page first (-32042): ask, open,
		// wait for its word that the page is done, then call once more.
		if why := c.urlRequired(cctx, l, err); why != "" {
			return errorResult(name, why)
		}
		res, err = c.session.CallTool(cctx, params)
	}
	if err == nil {
		r.mu.Lock()
		srv.restarts, srv.retryAt = 0, time.Time{}
		r.mu.Unlock()
		if t := taskOf(res); t != nil {
			l, _ := cctx.Value(listenerKey{}).(*CallListener)
			return r.followTask(ctx, cctx, srv, c, tool, t, l)
		}
		if bad := checkStructured(tool, r.outputSchema(srv, tool), res); bad != "" {
			return errorResult(name, capText(bad, r.opts.ResultMaxBytes))
		}
		return convertResult(name, res, resultLimits{text: r.opts.ResultMaxBytes, image: r.opts.MaxImageBytes})
	}
	var werr *jsonrpc.Error
	switch {
	case errors.As(err, &werr) && werr.Code != codeRejectedByTransport:
		// The server answered: it is alive, the call failed.
		return errorResult(name, capText(werr.Message, r.opts.ResultMaxBytes))
	case ctx.Err() != nil && !c.hasExited():
		return errorResult(name, "call cancelled")
	case r.ctx.Err() != nil:
		return errorResult(name, "the MCP registry shut down during the call")
	case unreadable(err):
		// The answer came but could not be decoded (corrupt base64 in an
		// image, say): the connection is fine, only this result is lost.
		return errorResult(name, capText(fmt.Sprintf("the result of %s could not be read, so none of it was used: %v", tool, err), r.opts.ResultMaxBytes))
	case (errors.Is(err, context.DeadlineExceeded) || errors.Is(context.Cause(cctx), errCallTimeout)) && !c.hasExited():
		r.goTracked(func() { r.probe(srv, c, timeout) })
		return errorResult(name, fmt.Sprintf("%s did not answer within call_timeout (%s); the call was cancelled", tool, timeout))
	}
	if c.streamBroke(err) {
		// 2026-07-28 has no resumability and a call is never sent twice:
		// the break cancelled it on the server, perhaps after it ran. (The
		// SDK may have ended the connection meanwhile; this says more.)
		what := fmt.Sprintf("the response stream broke before %s's result came (%v): the call may or may not have run on the server, and agentls did not repeat it", tool, err)
		return errorResult(name, r.markFailed(srv, c, what)+"; it will be connected again on next use")
	}
	if c.stopped.Load() {
		return errorResult(name, "the server was stopped during the call")
	}
	// The connection broke. Decide from the process whether it died.
	what := fmt.Sprintf("the connection broke during the call (%v); stopped the server", err)
	if c.proc == nil {
		// A remote server: its HTTP exchange failed (the server went away,
		// the connection was reset), whatever the SDK calls it.
		what = fmt.Sprintf("the connection broke during the call (%v)", err)
	} else if c.waitExit(500 * time.Millisecond) {
		what = "exited during the call: " + c.exitDescription()
		c.drainStderr()
	}
	again := "; it will be restarted on next use"
	if c.proc == nil {
		again = "; it will be connected again on next use"
	}
	return errorResult(name, r.markFailed(srv, c, what)+again)
}

// unreadable reports whether a call failed on decoding its answer: invalid
// base64 in an image or audio block, a value of the wrong JSON type.
func unreadable(err error) bool {
	var corrupt base64.CorruptInputError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &corrupt) || errors.As(err, &syntax) || errors.As(err, &typ)
}

// probe tells a slow tool from a hung server after a call timed out: a
// server that cannot answer a ping is stopped, to be restarted on next use.
func (r *Registry) probe(srv *server, c *conn, callTimeout time.Duration) {
	timeout := min(callTimeout, 5*time.Second)
	ctx, cancel := context.WithTimeout(r.ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	err := c.session.Ping(ctx, nil)
	var werr *jsonrpc.Error
	if err != nil && c.stateless() && errors.As(err, &werr) {
		// 2026-07-28 removed ping: a server of that revision refuses it
		// (over HTTP, with a 400), and a refusal is an answer. There is no
		// session to have lost.
		err = nil
	}
	if err == nil {
		r.opts.Logf("mcp: %s: still answers after a call timed out; kept", srv.cfg.Name)
		return
	}
	if r.ctx.Err() == nil {
		select {
		case <-c.closed:
			return
		default:
		}
		r.markFailed(srv, c, fmt.Sprintf("stopped answering (no reply to ping within %s after a call timed out); stopped it", timeout))
	}
}

// progressSettle bounds the wait for a call's last progress notification
// after its result came, when the server announced a total not reached yet.
const progressSettle = 200 * time.Millisecond

// trackedListener notes how far a call's progress got.
type trackedListener struct {
	inner *CallListener
	mu    sync.Mutex
	last  Progress
	more  chan struct{}
}

func (t *trackedListener) progress(p Progress) {
	t.mu.Lock()
	t.last = p
	t.mu.Unlock()
	if t.inner.Progress != nil {
		t.inner.Progress(p)
	}
	select {
	case t.more <- struct{}{}:
	default:
	}
}

// settle waits up to d for progress to reach its announced total.
func (t *trackedListener) settle(d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		t.mu.Lock()
		p := t.last
		t.mu.Unlock()
		if p.Total <= 0 || p.Progress >= p.Total {
			return
		}
		select {
		case <-t.more:
		case <-timer.C:
			return
		}
	}
}

// codeRejectedByTransport is the code the SDK's HTTP transports give a
// request whose exchange failed (a refused or broken connection, an answer
// that never came): not an answer from the server, so never read as one.
const codeRejectedByTransport = -32005

// errCallTimeout ends a call that ran past its server's call_timeout.
var errCallTimeout = errors.New("call_timeout")

// callDeadline is a call's timeout that stops while the user answers the
// server's questions.
type callDeadline struct {
	mu      sync.Mutex
	timer   *time.Timer
	left    time.Duration
	ends    time.Time
	paused  int
	stopped bool
}

func newCallDeadline(d time.Duration, expire func()) *callDeadline {
	return &callDeadline{timer: time.AfterFunc(d, expire), ends: time.Now().Add(d)}
}

func (d *callDeadline) pause() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.paused++
	if d.paused == 1 && !d.stopped && d.timer.Stop() {
		d.left = time.Until(d.ends)
	}
}

func (d *callDeadline) resume() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.paused--
	if d.paused == 0 && !d.stopped && d.left > 0 {
		d.ends = time.Now().Add(d.left)
		d.timer.Reset(d.left)
		d.left = 0
	}
}

func (d *callDeadline) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	d.timer.Stop()
}
