// Package jsonrpc is agentls's one JSON-RPC 2.0 connection, spoken with
// two framings: LSP's Content-Length headers ([Headers]) and ACP's
// newline-delimited JSON ([Lines]).
//
// It owns what a connection must get right whatever rides on it: the read
// loop, the write lock, the check of every message against JSON-RPC 2.0
// (a well-framed message that is not valid JSON-RPC is answered -32700 or
// -32600 and the connection goes on; a frame that cannot be delimited ends
// it with a *FramingError), limits on a frame checked before anything is
// allocated, one goroutine per request (an approval asked of the peer from
// inside a request never waits behind another), the requests in flight by
// id (an id used twice keeps both) and their cancellation by the
// protocol's cancel notification, and calls to the peer with their
// responses.
//
// It never knows a method: what a request means, which are allowed when,
// and what the answer is belong to the handler above it (server/ for LSP,
// acp/ for ACP).
package jsonrpc
