package server

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agentls/agentls/internal/jsonrpc"
	"github.com/agentls/agentls/wire"
)

// How a request's params reach a typed handler, and how params that do
// not do are refused: InvalidParams naming the method and what it takes.
// routes.go binds every method with these.

// route is one method and its adapted handler: for a command, params are
// its arguments array.
type route struct {
	method string
	h      requestHandler
}

// bind adapts the handler of a declared request: its params are decoded
// into P, and a decoding error, or an error the handler made with
// badParams, is answered InvalidParams naming the method and the params it
// takes (the declaration's usage).
func bind[P, R any](m wire.Request[P, R], h func(context.Context, P) (R, error)) route {
	return route{m.Name, typed(m.Name, m.Usage(), h)}
}

// bindCommand adapts the handler of a declared command: its arguments are
// decoded in order into the fields of A, errors answered as bind does.
func bindCommand[A, R any](m wire.Request[A, R], h func(context.Context, A) (R, error)) route {
	return route{m.Name, func(ctx context.Context, params json.RawMessage) (any, error) {
		var args []json.RawMessage
		if err := decodeParams(params, &args); err != nil {
			return nil, invalidParams(m.Name, err, m.Usage())
		}
		var a A
		if err := wire.DecodeArgs(args, &a); err != nil {
			return nil, invalidParams(m.Name, err, m.Usage())
		}
		return answer(ctx, m.Name, m.Usage(), h, a)
	}}
}

// typed adapts a handler that takes its params and returns its result as
// Go types, as gopls's protocol handlers do: the params are decoded into P
// (empty or null params leave the zero value).
func typed[P, R any](method, expected string, h func(context.Context, P) (R, error)) requestHandler {
	return func(ctx context.Context, params json.RawMessage) (any, error) {
		var p P
		if err := decodeParams(params, &p); err != nil {
			return nil, invalidParams(method, err, expected)
		}
		return answer(ctx, method, expected, h, p)
	}
}

// answer calls h; badParams errors become InvalidParams.
func answer[P, R any](ctx context.Context, method, expected string, h func(context.Context, P) (R, error), p P) (any, error) {
	r, err := h(ctx, p)
	if err != nil {
		var bad paramsError
		if errors.As(err, &bad) {
			return nil, invalidParams(method, bad.err, expected)
		}
		return nil, err
	}
	return r, nil
}

// paramsError is params that decoded but say too little (a missing server
// name): bind answers it as InvalidParams.
type paramsError struct{ err error }

func (e paramsError) Error() string { return e.err.Error() }

// badParams is the error a typed handler returns for params that decoded
// but do not do: msg says what is wrong.
func badParams(msg string) error { return paramsError{errors.New(msg)} }

// invalidParams is the error for params that do not decode.
func invalidParams(method string, err error, expected string) error {
	return jsonrpc.Errorf(jsonrpc.InvalidParams, "agentls: %s: bad params: %v (expected %s)", method, err, expected)
}

// decodeParams decodes params into v; empty or null params leave v as is.
func decodeParams(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		return nil
	}
	return json.Unmarshal(params, v)
}
