package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Error codes of JSON-RPC 2.0 and the ones LSP and ACP add.
const (
	ParseError           int64 = -32700
	InvalidRequest       int64 = -32600
	MethodNotFound       int64 = -32601
	InvalidParams        int64 = -32602
	InternalError        int64 = -32603
	ServerNotInitialized int64 = -32002 // LSP
	ResourceNotFound     int64 = -32002 // ACP
	RequestCancelled     int64 = -32800
)

// Error is a JSON-RPC error object. A handler returns one to choose the
// code of its error reply; a call to the peer returns one when the peer
// answered with an error.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Errorf makes an *Error with code and a formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// message is one decoded, checked message. Which fields are set says its
// kind: a request has a method and an id, a notification a method only, a
// response an id and a result or an error.
type message struct {
	id     json.RawMessage // as sent; nil when absent or null
	method string
	params json.RawMessage
	result json.RawMessage
	err    *Error
}

func (m *message) isResponse() bool { return m.method == "" }

// badMessage is a well-framed message that is not valid JSON-RPC, and the
// error reply it gets.
type badMessage struct {
	code    int64
	message string
	id      json.RawMessage // the request's id when it could be read; nil means null
}

// envelope is every top-level member JSON-RPC defines, undecoded.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// decodeMessage checks body against JSON-RPC 2.0 and decodes it, or says
// what is wrong with it. expect says what a message should be (the
// framing's rule), for a body that is not JSON; maxID is the largest
// integer id the protocol allows.
func decodeMessage(body []byte, expect string, maxID int64) (*message, *badMessage) {
	if !json.Valid(body) {
		return nil, &badMessage{code: ParseError, message: "agentls: parse error: the message is not valid JSON (expected " + expect + ")"}
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, invalid(nil, "a batch (JSON array) of messages; agentls takes one message at a time")
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, invalid(nil, "the message is not a JSON object")
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, invalid(nil, "the message does not decode: "+err.Error())
	}
	id, idProblem := checkID(env.ID, maxID)
	if idProblem != "" {
		return nil, invalid(nil, idProblem)
	}
	if string(env.JSONRPC) != `"2.0"` {
		return nil, invalid(id, `"jsonrpc" must be "2.0"`)
	}
	if present(env.Params) && !isContainer(env.Params) {
		return nil, invalid(id, `"params" must be an object or an array`)
	}
	if !present(env.Method) {
		if id == nil {
			return nil, invalid(nil, `a message needs a "method" (a request or notification) or an "id" with "result" or "error" (a response)`)
		}
		if len(env.Result) == 0 && !present(env.Error) { // "result": null is a result
			return nil, invalid(id, `a request needs a "method"; a response needs "result" or "error"`)
		}
		m := &message{id: id, result: env.Result}
		if present(env.Error) {
			if err := json.Unmarshal(env.Error, &m.err); err != nil {
				return nil, invalid(id, `"error" must be an object with a "code" and a "message": `+err.Error())
			}
		}
		return m, nil
	}
	var method string
	if err := json.Unmarshal(env.Method, &method); err != nil {
		return nil, invalid(id, `"method" must be a string`)
	}
	if method == "" {
		return nil, invalid(id, `"method" is empty`)
	}
	return &message{id: id, method: method, params: env.Params}, nil
}

// checkID returns the id to echo in an error reply (nil when absent or
// null) or what is wrong with it. Ids are non-empty strings or integers
// up to maxID (LSP's are 32-bit).
func checkID(raw json.RawMessage, maxID int64) (json.RawMessage, string) {
	if !present(raw) {
		return nil, ""
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || s == "" {
			return nil, `"id" must be a non-empty string or an integer`
		}
		return raw, ""
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n < -maxID-1 || n > maxID {
			return nil, fmt.Sprintf(`"id" %s is not an integer between %d and %d`, raw, -maxID-1, maxID)
		}
		return raw, ""
	}
	return nil, `"id" must be a string or an integer`
}

// idKey normalizes an id: numbers as "#N", strings quoted, so that 1 and
// "1" stay distinct and a cancel notification's id matches however it was
// spelled (7, 7.0, "\u0037" is the string "7"). ok is false for what can
// be no id.
func idKey(raw json.RawMessage) (key string, ok bool) {
	raw = bytes.TrimSpace(raw)
	if !present(raw) {
		return "", false
	}
	var str string
	if err := json.Unmarshal(raw, &str); err == nil {
		return strconv.Quote(str), true
	}
	var num json.Number
	if err := json.Unmarshal(raw, &num); err != nil {
		return "", false
	}
	if i, err := strconv.ParseInt(num.String(), 10, 64); err == nil {
		return "#" + strconv.FormatInt(i, 10), true
	}
	n, err := strconv.ParseFloat(num.String(), 64)
	if err != nil || n != math.Trunc(n) || math.Abs(n) > 1<<53 {
		return "", false
	}
	return "#" + strconv.FormatInt(int64(n), 10), true
}

// present reports whether a member was given and not null.
func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

func isContainer(raw json.RawMessage) bool { return raw[0] == '{' || raw[0] == '[' }

func invalid(id json.RawMessage, why string) *badMessage {
	return &badMessage{code: InvalidRequest, message: "agentls: invalid request: " + why, id: id}
}
