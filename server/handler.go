package server

import (
	"context"
	"encoding/json"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/internal/jsonrpc"
)

// requestHandler answers one request. It runs on its own goroutine with a
// context that is cancelled by $/cancelRequest, shutdown or connection loss.
type requestHandler func(ctx context.Context, params json.RawMessage) (any, error)

// notificationHandler handles one notification on the read loop, in order.
// It must be fast: the next message waits for it.
type notificationHandler func(params json.RawMessage)

// notification adapts the handler of a notification to its params type P,
// as typed does for a request: the params decode into P, and params that
// do not (or none where some are needed) are said in a warning naming
// what was expected, and not handled. A notification has no answer to
// carry the error.
func notification[P any](s *Server, method, expected string, h func(P)) notificationRoute {
	return notificationRoute{method, func(params json.RawMessage) {
		var p P
		if err := json.Unmarshal(params, &p); err != nil {
			s.logMessage(logWarning, "agentls: "+method+": bad params: "+err.Error()+"; expected "+expected)
			return
		}
		h(p)
	}}
}

// bare adapts the handler of a notification that carries nothing agentls
// reads (initialized, exit): whatever its params, it is handled.
func bare(method string, h func()) notificationRoute {
	return notificationRoute{method, func(json.RawMessage) { h() }}
}

// notificationRoute is a notification's method and its handler.
type notificationRoute struct {
	method string
	h      notificationHandler
}

// handleRequest answers one request through its route. The connection
// runs it on its own goroutine, with a context that $/cancelRequest,
// shutdown or the connection's end cancels, so a task waiting for an
// approval never holds up didChange, $/cancelRequest or another request
// (protocol.Handlers serializes requests, which would deadlock us).
func (s *Server) handleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	h, err := s.route(method)
	if err != nil {
		return nil, err
	}
	return h(ctx, params)
}

// handleNotification handles one notification on the read loop, in order.
// Unknown ones ($/setTrace, didSave, ...) are ignored.
func (s *Server) handleNotification(_ context.Context, method string, params json.RawMessage) (any, error) {
	if h, ok := s.notifications[method]; ok {
		h(params)
	}
	return nil, nil
}

// route is the handler of a request's method, or the error to answer it
// with: the method is not one agentls implements, or the lifecycle does not
// allow it now. The handler is a function of (ctx, params): the connection
// calls it on the request's own goroutine.
func (s *Server) route(method string) (requestHandler, error) {
	h, ok := s.requests[method]
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.MethodNotFound, "agentls does not implement %q", method)
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
		return jsonrpc.Errorf(jsonrpc.ServerNotInitialized, "agentls: %s before initialize", method)
	case s.state == initialized && method == "initialize":
		return jsonrpc.Errorf(jsonrpc.InvalidRequest, "agentls: initialize sent twice")
	case s.state == shuttingDown && method != "shutdown":
		return jsonrpc.Errorf(jsonrpc.InvalidRequest, "agentls: %s after shutdown", method)
	}
	return nil
}

// echoMax caps a line that echoes a prompt, a result or an error (the
// $/progress begin and end messages, summaries): a 50 MB prompt is echoed as
// its first line, at most this many characters.
const echoMax = agent.EchoMax

// firstLine is s's first non-empty line, trimmed, at most echoMax runes.
func firstLine(s string) string { return tools.FirstLine(s, echoMax) }
