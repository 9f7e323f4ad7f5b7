package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// Handler answers one request: its result (marshalled to JSON) or its
// error (an *Error chooses the code) is the reply. For a notification the
// result is ignored.
type Handler func(ctx context.Context, method string, params json.RawMessage) (any, error)

// Conn is one JSON-RPC 2.0 connection. Make it with New, run its read loop
// with Serve, and call the peer with Call and Notify from any goroutine.
type Conn struct {
	protocol Protocol
	rules    rules
	in       frameReader
	out      io.Writer
	closer   io.Closer // the input, when it can be closed
	logf     func(format string, args ...any)

	wmu sync.Mutex // one frame at a time

	mu      sync.Mutex
	nextID  int64
	pending map[string]chan *message // calls waiting for their response, by id key
	done    chan struct{}            // closed when the read loop ends

	inflight inflight
	wg       sync.WaitGroup // request handlers
}

// New makes a connection that reads r and writes w in protocol p. logf gets what the peer should
// have done otherwise (a bad message, a reply that could not be written);
// nil drops it.
func New(r io.Reader, w io.Writer, p Protocol, logf func(format string, args ...any)) *Conn {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	rules := p.rules()
	c := &Conn{protocol: p, rules: rules, in: rules.framing.reader(r), out: w, logf: logf,
		pending: map[string]chan *message{}, done: make(chan struct{})}
	c.closer, _ = r.(io.Closer)
	return c
}

// Serve reads and dispatches messages until the input ends (nil), a frame
// cannot be delimited (*FramingError) or reading fails. Each request runs
// on its own goroutine with a context derived from ctx that ends when the
// peer cancels it, when Serve returns, or when ctx ends; so a handler
// waiting for the peer (an approval) never holds up the next message.
// Notifications run in order on the read loop and must be quick. Replies
// still owed are written after Serve returns: Wait waits for them.
func (c *Conn) Serve(ctx context.Context, request, notify Handler) error {
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		close(c.done)
	}()
	for {
		body, err := c.in.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		m, bad := decodeMessage(body, c.rules.framing.expect(), c.rules.maxID)
		if bad != nil {
			c.logf("%s; message %s", bad.message, quoteBytes(body))
			id := bad.id
			if id == nil {
				id = json.RawMessage("null")
			}
			if err := c.write(envelopeOut{ID: id, Error: &Error{Code: bad.code, Message: bad.message}}); err != nil {
				return fmt.Errorf("agentls: answering a bad message: %w", err)
			}
			continue
		}
		switch {
		case m.isResponse():
			c.deliver(m)
		case m.id == nil && m.method == c.rules.cancel:
			c.cancelRequest(m.params)
		case m.id == nil:
			c.run(ctx, notify, m) // in order: didChange before the next request
		default:
			c.start(ctx, request, m)
		}
	}
}

// start runs a request on its own goroutine and replies.
func (c *Conn) start(ctx context.Context, h Handler, m *message) {
	ctx, cancel := context.WithCancel(ctx)
	key, _ := idKey(m.id) // checked by decodeMessage
	token := c.inflight.add(key, cancel)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer c.inflight.remove(key, token)
		defer cancel()
		result, err := c.run(ctx, h, m)
		c.reply(m, result, err)
	}()
}

// run calls h, turning a panic into an internal error so one bad request
// never ends the editor's session.
func (c *Conn) run(ctx context.Context, h Handler, m *message) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.logf("agentls: panic in %s: %v", m.method, r)
			err = Errorf(InternalError, "agentls: internal error in %s: %v", m.method, r)
		}
	}()
	return h(ctx, m.method, m.params)
}

// reply sends a request's result or error. It is written whatever the
// request's context says: a reply dropped leaves the peer waiting forever.
func (c *Conn) reply(m *message, result any, err error) {
	out := envelopeOut{ID: m.id}
	if err != nil {
		out.Error = wireError(err)
	} else if b, merr := json.Marshal(result); merr != nil {
		out.Error = Errorf(InternalError, "agentls: encoding the result of %s: %v", m.method, merr)
	} else {
		out.Result = b
	}
	if err := c.write(out); err != nil {
		c.logf("agentls: reply to %s: %v", m.method, err)
	}
}

// wireError gives every error a code: an *Error keeps its own, a
// cancelled request is RequestCancelled, anything else InternalError.
func wireError(err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, context.Canceled):
		return &Error{Code: RequestCancelled, Message: err.Error()}
	}
	return &Error{Code: InternalError, Message: err.Error()}
}

// cancelRequest is the protocol's cancel notification: it cancels the
// context of every request in flight under the id it names.
func (c *Conn) cancelRequest(params json.RawMessage) {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return
	}
	if key, ok := idKey(p[c.rules.cancelID]); ok {
		c.inflight.cancel(key)
	}
}

// deliver hands a response to the call waiting for it; one nobody waits
// for (a call that gave up) is dropped.
func (c *Conn) deliver(m *message) {
	key, _ := idKey(m.id)
	c.mu.Lock()
	ch, ok := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if ok {
		ch <- m // buffered
	}
}

// Call sends a request and decodes its result into result (nil skips
// it). It returns when the response comes (an *Error when the peer
// answered one), when ctx ends (telling the peer with the protocol's
// cancel notification), or when the connection's input ends.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encoding the params: %w", method, err)
	}
	ch := make(chan *message, 1)
	c.mu.Lock()
	select {
	case <-c.done:
		c.mu.Unlock()
		return fmt.Errorf("%s: the editor closed the connection", method)
	default:
	}
	c.nextID++
	id := c.nextID
	key := "#" + strconv.FormatInt(id, 10)
	c.pending[key] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
	}
	idRaw := json.RawMessage(strconv.FormatInt(id, 10))
	if err := c.write(envelopeOut{ID: idRaw, Method: method, Params: b}); err != nil {
		forget()
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.err != nil {
			return m.err
		}
		if result != nil && present(m.result) {
			if err := json.Unmarshal(m.result, result); err != nil {
				return fmt.Errorf("%s: unexpected result %s: %w", method, quoteBytes(m.result), err)
			}
		}
		return nil
	case <-ctx.Done():
		forget()
		cancel, _ := json.Marshal(map[string]json.RawMessage{c.rules.cancelID: idRaw})
		if err := c.write(envelopeOut{Method: c.rules.cancel, Params: cancel}); err != nil {
			c.logf("agentls: cancelling %s: %v", method, err)
		}
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case <-c.done:
		forget()
		return fmt.Errorf("%s: the editor closed the connection", method)
	}
}

// Notify sends a notification.
func (c *Conn) Notify(method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encoding the params: %w", method, err)
	}
	if err := c.write(envelopeOut{Method: method, Params: b}); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// envelopeOut is every message this side writes; which fields are set
// says which kind.
type envelopeOut struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// write sends one message in one frame.
func (c *Conn) write(m envelopeOut) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("agentls: encoding a message: %w", err)
	}
	frame := c.rules.framing.frame(b)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.out.Write(frame); err != nil {
		return fmt.Errorf("agentls: writing to the editor: %w", err)
	}
	return nil
}

// Done is closed when Serve has returned: no response comes any more.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Wait waits for every request handler to return and its reply to be
// written.
func (c *Conn) Wait() { c.wg.Wait() }

// Close closes the input New was given, when it is an io.Closer (an
// io.ReadWriteCloser is closed whole), which ends a read blocked in Serve.
func (c *Conn) Close() error {
	if c.closer == nil {
		return nil
	}
	return c.closer.Close()
}
