package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent"
)

// requestHandler answers one request. It runs on its own goroutine with a
// context that is cancelled by $/cancelRequest, shutdown or connection loss.
type requestHandler func(ctx context.Context, params json.RawMessage) (any, error)

// notificationHandler handles one notification on the read loop, in order.
// It must be fast: the next message waits for it.
type notificationHandler func(params json.RawMessage)

func (s *Server) notificationHandlers() map[string]notificationHandler {
	return map[string]notificationHandler{
		"initialized":                         s.initialized,
		"exit":                                s.exit,
		"$/cancelRequest":                     s.cancelRequest,
		"textDocument/didOpen":                s.didOpen,
		"textDocument/didChange":              s.didChange,
		"textDocument/didClose":               s.didClose,
		"window/workDoneProgress/cancel":      s.workDoneProgressCancel,
		"workspace/didChangeWorkspaceFolders": s.didChangeWorkspaceFolders,
	}
}

// handle is the connection's only handler. Notifications run here, in
// order; each request gets its own goroutine so that a task waiting for an
// approval never holds up didChange, $/cancelRequest or another request
// (protocol.Handlers serializes requests, which would deadlock us).
func (s *Server) handle(_ context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	call, isCall := req.(*jsonrpc2.Call)
	if !isCall {
		if h, ok := s.notifications[req.Method()]; ok {
			func() {
				defer s.recoverPanic(req.Method())
				h(req.Params())
			}()
		}
		return nil // unknown notifications ($/setTrace, didSave, ...) are ignored
	}

	method := req.Method()
	// Replies go out with a detached context: a reply written with a
	// cancelled one is dropped silently and the client waits forever.
	send := func(result any, err error) {
		if err := reply(context.Background(), result, wireError(err)); err != nil {
			s.opts.Logf("agentls: reply to %s: %v", method, err)
		}
	}
	h, err := s.route(method)
	if err != nil {
		send(nil, err)
		return nil
	}
	ctx, cancel := context.WithCancel(s.ctx)
	key := idKey(call.ID())
	token := s.inflight.add(key, cancel)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.inflight.remove(key, token)
		defer cancel()
		var (
			result any
			err    error
		)
		func() {
			defer func() {
				if r := recover(); r != nil {
					s.opts.Logf("agentls: panic in %s: %v", method, r)
					err = jsonrpc2.Errorf(jsonrpc2.InternalError, "agentls: internal error in %s: %v", method, r)
				}
			}()
			result, err = h(ctx, call.Params())
		}()
		send(result, err)
	}()
	return nil
}

// route is the handler of a request's method, or the error to answer it
// with: the method is not one agentls implements, or the lifecycle does not
// allow it now. The handler is a function of (ctx, params): the connection
// calls it on the request's own goroutine.
func (s *Server) route(method string) (requestHandler, error) {
	h, ok := s.requests[method]
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "agentls does not implement %q", method)
	}
	if err := s.checkLifecycle(method); err != nil {
		return nil, err
	}
	return h, nil
}

// checkLifecycle refuses requests before initialize and after shutdown, as
// LSP says.
func (s *Server) checkLifecycle(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.state == uninitialized && method != "initialize":
		return jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "agentls: %s before initialize", method)
	case s.state == initialized && method == "initialize":
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "agentls: initialize sent twice")
	case s.state == shuttingDown && method != "shutdown":
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "agentls: %s after shutdown", method)
	}
	return nil
}

// requestCancelled is LSP's RequestCancelled error code.
const requestCancelled jsonrpc2.Code = -32800

// wireError gives every error a JSON-RPC code (jsonrpc2 sends 0 otherwise).
func wireError(err error) error {
	if err == nil {
		return nil
	}
	var w *jsonrpc2.Error
	if errors.As(err, &w) {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return jsonrpc2.NewError(requestCancelled, err.Error())
	}
	return jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
}

// inflight maps request ids to the cancel funcs of their handlers. Ids
// should be unique among requests in flight, but a client may reuse one:
// each request keeps its own entry, so the second one finishing does not
// take the first one's with it, and $/cancelRequest for the id reaches every
// request still running under it.
type inflight struct {
	mu   sync.Mutex
	next uint64
	m    map[string]map[uint64]context.CancelFunc
}

// add records a handler's cancel func and returns the token that removes it.
func (f *inflight) add(key string, cancel context.CancelFunc) uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]map[uint64]context.CancelFunc{}
	}
	if f.m[key] == nil {
		f.m[key] = map[uint64]context.CancelFunc{}
	}
	f.next++
	f.m[key][f.next] = cancel
	return f.next
}

func (f *inflight) remove(key string, token uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.m[key], token)
	if len(f.m[key]) == 0 {
		delete(f.m, key)
	}
}

// cancel cancels every request in flight under key.
func (f *inflight) cancel(key string) bool {
	f.mu.Lock()
	var cancels []context.CancelFunc
	for _, c := range f.m[key] {
		cancels = append(cancels, c)
	}
	f.mu.Unlock()
	for _, c := range cancels {
		c()
	}
	return len(cancels) > 0
}

// idKey normalizes a request id: numbers as "#N", strings quoted, so that 1
// and "1" stay distinct and a $/cancelRequest id matches however it was
// spelled (protocol's CancelHandler decodes numbers as float64 and never
// matches them).
func idKey(id jsonrpc2.ID) string { return fmt.Sprintf("%q", id) }

// rawIDKey normalizes an id as it appears in $/cancelRequest params.
func rawIDKey(raw json.RawMessage) (string, bool) {
	var str string
	if err := json.Unmarshal(raw, &str); err == nil {
		if str == "" {
			return "#0", true // jsonrpc2 reads an empty string id as number 0
		}
		return strconv.Quote(str), true
	}
	var num json.Number
	if err := json.Unmarshal(raw, &num); err != nil {
		return "", false
	}
	n, err := strconv.ParseFloat(num.String(), 64)
	if err != nil || n != float64(int32(n)) {
		return "", false
	}
	return "#" + strconv.Itoa(int(int32(n))), true
}

// cancelRequest is our own $/cancelRequest: it cancels the handler's
// context; agent/run turns that into cancelling its task.
func (s *Server) cancelRequest(params json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return
	}
	if key, ok := rawIDKey(p.ID); ok {
		s.inflight.cancel(key)
	}
}

// echoMax caps a line that echoes a prompt, a result or an error (the
// $/progress begin and end messages, summaries): a 50 MB prompt is echoed as
// its first line, at most this many characters.
const echoMax = agent.EchoMax

// firstLine is s's first non-empty line, trimmed, at most echoMax runes.
func firstLine(s string) string { return agent.FirstLine(s, echoMax) }
