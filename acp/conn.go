package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// maxLine caps one incoming message (an embedded file in a prompt can be
// large; a runaway peer must not grow memory without bound).
const maxLine = 64 << 20

// JSON-RPC error codes ACP uses.
const (
	codeParseError       = -32700
	codeInvalidRequest   = -32600
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeInternalError    = -32603
	codeResourceNotFound = -32002
)

// rpcError is a JSON-RPC error object; handlers return one to choose the code.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// message is any JSON-RPC 2.0 message; which fields are set says which kind.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// handler answers one request; a notification's result is ignored.
type handler func(ctx context.Context, method string, params json.RawMessage) (any, error)

// conn is one JSON-RPC connection over newline-delimited JSON. Requests run
// each in its own goroutine (a prompt waits on permissions the same peer
// answers); notifications run in order on the read loop and must be quick
// (session/cancel is one). Calls to the peer wait for their response, their
// ctx, or the connection's end.
type conn struct {
	w   io.Writer
	wmu sync.Mutex

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan message
	closed  bool
	done    chan struct{} // closed when the read loop ends

	wg sync.WaitGroup // request handlers
}

func newConn(w io.Writer) *conn {
	return &conn{w: w, pending: map[int64]chan message{}, done: make(chan struct{})}
}

// serve reads r until it ends or fails, dispatching every message. It
// returns when the input ends; handlers may still be running (wait).
func (c *conn) serve(ctx context.Context, r io.Reader, onRequest, onNotify handler) error {
	defer func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		close(c.done)
	}()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		c.dispatchLine(ctx, line, onRequest, onNotify)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line without its newline, refusing lines over maxLine.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("acp: a message longer than %d bytes", maxLine)
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}

// dispatchLine dispatches every message of one line. A peer that left out
// a newline put two messages on one line: each is read and answered (the
// first one's caller would otherwise wait forever for its reply, and a
// parse error with id null reaches nobody). What cannot be read as JSON
// from there on gets one parse error.
func (c *conn) dispatchLine(ctx context.Context, line []byte, onRequest, onNotify handler) {
	dec := json.NewDecoder(bytes.NewReader(line))
	for {
		var raw json.RawMessage
		at := dec.InputOffset()
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			c.dispatch(ctx, line[at:], onRequest, onNotify)
			return
		}
		c.dispatch(ctx, raw, onRequest, onNotify)
	}
}

func (c *conn) dispatch(ctx context.Context, line []byte, onRequest, onNotify handler) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		c.send(message{ID: json.RawMessage("null"), Error: &rpcError{codeParseError, "not JSON: " + err.Error() + " (expected one JSON-RPC 2.0 message per line)"}})
		return
	}
	switch {
	case m.Method != "" && len(m.ID) > 0:
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			res, err := safeCall(ctx, onRequest, m.Method, m.Params)
			c.reply(m.ID, res, err)
		}()
	case m.Method != "":
		safeCall(ctx, onNotify, m.Method, m.Params)
	case len(m.ID) > 0:
		var id int64
		if json.Unmarshal(m.ID, &id) != nil {
			return
		}
		c.mu.Lock()
		ch, ok := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ok {
			ch <- m
		}
	}
}

// safeCall runs h, turning a panic into an internal error so one bad
// request never ends the editor's session.
func safeCall(ctx context.Context, h handler, method string, params json.RawMessage) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &rpcError{codeInternalError, fmt.Sprintf("agentls: panic in %s: %v", method, r)}
		}
	}()
	return h(ctx, method, params)
}

func (c *conn) reply(id json.RawMessage, res any, err error) {
	if err != nil {
		var re *rpcError
		if !errors.As(err, &re) {
			re = &rpcError{codeInternalError, err.Error()}
		}
		c.send(message{ID: id, Error: re})
		return
	}
	b, merr := json.Marshal(res)
	if merr != nil {
		c.send(message{ID: id, Error: &rpcError{codeInternalError, "agentls: encode result: " + merr.Error()}})
		return
	}
	c.send(message{ID: id, Result: b})
}

// send writes one message as one line.
func (c *conn) send(m message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("acp: encode %s: %w", m.Method, err)
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(b)
	return err
}

// notify sends a notification.
func (c *conn) notify(method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("acp: encode %s: %w", method, err)
	}
	return c.send(message{Method: method, Params: b})
}

// call sends a request and decodes its result into out. It gives up when ctx
// ends (telling the peer with $/cancel_request) or the connection closes.
func (c *conn) call(ctx context.Context, method string, params, out any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("acp: encode %s: %w", method, err)
	}
	ch := make(chan message, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return fmt.Errorf("acp: %s: the editor closed the connection", method)
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	idRaw, _ := json.Marshal(id)
	forget := func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}
	if err := c.send(message{ID: idRaw, Method: method, Params: b}); err != nil {
		forget()
		return fmt.Errorf("acp: send %s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("acp: %s: the editor answered with an error: %w", method, m.Error)
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				return fmt.Errorf("acp: %s: unexpected result %s: %w", method, truncate(string(m.Result), 200), err)
			}
		}
		return nil
	case <-ctx.Done():
		forget()
		c.notify(methodCancelRequest, struct {
			RequestID int64 `json:"requestId"`
		}{id})
		return fmt.Errorf("acp: %s: %w", method, ctx.Err())
	case <-c.done:
		forget()
		return fmt.Errorf("acp: %s: the editor closed the connection", method)
	}
}

// wait waits for every request handler to return.
func (c *conn) wait() { c.wg.Wait() }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
