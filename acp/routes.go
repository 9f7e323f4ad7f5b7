package acp

import (
	"context"
	"encoding/json"
	"strings"
)

// The ACP methods this agent answers, declared once each: the name, the
// params an error says it expects, and a handler whose Go types are the
// method's params and result (ACP's schema, wire.go). The read loop's
// routes, the list a MethodNotFound names and the doc test's list come from
// these tables. ACP's methods are the protocol's, not ours, so this is a
// table of its own beside package wire's agent/* contract.

// requestRoutes are the requests this agent answers.
func (a *Agent) requestRoutes() []route {
	return []route{
		bind(methodInitialize, `{"protocolVersion": 1, "clientCapabilities": {...}}`, a.initialize),
		bind(methodAuthenticate, `{"methodId": "..."}`, a.authenticate),
		bind(methodSessionNew, `{"cwd": "/abs/path", "mcpServers": [...]}`, a.newSession),
		bind(methodSessionLoad, `{"sessionId": "...", "cwd": "/abs/path", "mcpServers": [...]}`, a.loadSession),
		bind(methodSessionResume, `{"sessionId": "...", "cwd": "/abs/path", "mcpServers"?: [...]}`, a.resumeSession),
		bind(methodSessionList, `{"cwd"?: "/abs/path"}`, a.listSessions),
		bind(methodSessionPrompt, `{"sessionId": "...", "prompt": [{"type": "text", "text": "..."}]}`, a.prompt),
		bind(methodSessionSetMode, `{"sessionId": "...", "modeId": "plan"}`, a.sessionSetMode),
		bind(methodSetConfigOption, `{"sessionId": "...", "configId": "mode", "value": "plan"}`, a.sessionSetConfigOption),
	}
}

// notificationRoutes are the notifications this agent handles, on the
// read loop, in order. ($/cancel_request is the connection's own: it
// cancels the request it names, internal/jsonrpc.)
func (a *Agent) notificationRoutes() []route {
	return []route{
		bind(methodSessionCancel, `{"sessionId": "..."}`, a.sessionCancel),
	}
}

// sentMethods are the methods this agent sends the client.
var sentMethods = []string{methodSessionUpdate, methodRequestPermission, methodReadTextFile,
	methodWriteTextFile, methodCreateElicitation}

// route is one method and its adapted handler.
type route struct {
	method string
	h      func(ctx context.Context, params json.RawMessage) (any, error)
}

// bind adapts a typed handler: the params are decoded into P (empty params
// as {}), and a decoding error is InvalidParams saying what was expected.
func bind[P, R any](method, expected string, h func(context.Context, P) (R, error)) route {
	return route{method, func(ctx context.Context, params json.RawMessage) (any, error) {
		var p P
		if err := decode(params, &p, expected); err != nil {
			return nil, err
		}
		r, err := h(ctx, p)
		if err != nil {
			return nil, err
		}
		return r, nil
	}}
}

// routeTable maps each route's method to its handler.
func routeTable(routes []route) map[string]func(context.Context, json.RawMessage) (any, error) {
	m := make(map[string]func(context.Context, json.RawMessage) (any, error), len(routes))
	for _, r := range routes {
		m[r.method] = r.h
	}
	return m
}

// implemented names every method a client may send, for MethodNotFound.
var implemented = func() string {
	a := &Agent{}
	var names []string
	for _, r := range append(a.requestRoutes(), a.notificationRoutes()...) {
		if r.method != methodAuthenticate {
			names = append(names, r.method)
		}
	}
	return strings.Join(names, ", ")
}()
