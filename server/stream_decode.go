package server

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"go.lsp.dev/jsonrpc2"
)

// badMessage is a well-framed message that is not valid JSON-RPC, and the
// error reply it gets.
type badMessage struct {
	Code    jsonrpc2.Code
	Message string
	ID      json.RawMessage // the request's id when it could be read; nil means null
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

// decodeMessage checks body against JSON-RPC 2.0 as LSP uses it and
// decodes it, or says what is wrong with it. jsonrpc2 would take a message
// with "method": "" for a response (never answered) and fail the whole
// connection on anything else it cannot decode.
func decodeMessage(body []byte) (jsonrpc2.Message, *badMessage) {
	if !json.Valid(body) {
		return nil, &badMessage{Code: jsonrpc2.ParseError, Message: "agentls: parse error: the message is not valid JSON"}
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, invalid(nil, "a batch (JSON array) of messages; LSP sends one message per frame")
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, invalid(nil, "the message is not a JSON object")
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, invalid(nil, "the message does not decode: "+err.Error())
	}
	id, idProblem := checkID(env.ID)
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
		return decodeChecked(body, id)
	}
	var method string
	if err := json.Unmarshal(env.Method, &method); err != nil {
		return nil, invalid(id, `"method" must be a string`)
	}
	if method == "" {
		return nil, invalid(id, `"method" is empty`)
	}
	return decodeChecked(body, id)
}

// decodeChecked leaves the decoding of a checked message to jsonrpc2.
func decodeChecked(body []byte, id json.RawMessage) (jsonrpc2.Message, *badMessage) {
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		return nil, invalid(id, "the message does not decode: "+err.Error())
	}
	return msg, nil
}

// checkID returns the id to echo in an error reply (nil when absent or
// null) or what is wrong with it. LSP ids are strings or 32-bit integers,
// which is also all jsonrpc2 can hold; jsonrpc2 also cannot tell "" from 0.
func checkID(raw json.RawMessage) (json.RawMessage, string) {
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
		if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
			return nil, `"id" ` + string(raw) + ` is not an integer between -2147483648 and 2147483647`
		}
		return raw, ""
	}
	return nil, `"id" must be a string or an integer`
}

// present reports whether a member was given and not null.
func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

func isContainer(raw json.RawMessage) bool { return raw[0] == '{' || raw[0] == '[' }

func invalid(id json.RawMessage, why string) *badMessage {
	return &badMessage{Code: jsonrpc2.InvalidRequest, Message: "agentls: invalid request: " + why, ID: id}
}
