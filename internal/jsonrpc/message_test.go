package jsonrpc

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// Valid messages of every kind decode to the kind they are.
func TestDecodeMessageAcceptsValidMessages(t *testing.T) {
	tests := []struct {
		name, body string
		kind       string
	}{
		{"a call with a number id", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, "request"},
		{"a call with a string id and no params", `{"jsonrpc":"2.0","id":"a","method":"shutdown"}`, "request"},
		{"a notification", `{"jsonrpc":"2.0","method":"exit"}`, "notification"},
		{"a null id is a notification", `{"jsonrpc":"2.0","id":null,"method":"exit"}`, "notification"},
		{"array params", `{"jsonrpc":"2.0","id":2,"method":"m","params":[1]}`, "request"},
		{"a response with a result", `{"jsonrpc":"2.0","id":3,"result":null}`, "response"},
		{"a response with an error", `{"jsonrpc":"2.0","id":-4,"error":{"code":-32601,"message":"no"}}`, "response"},
		{"the largest 32-bit id", `{"jsonrpc":"2.0","id":2147483647,"method":"m"}`, "request"},
		{"the smallest 32-bit id", `{"jsonrpc":"2.0","id":-2147483648,"method":"m"}`, "request"},
		{"whitespace around the object", " \r\n{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\r\n ", "notification"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, bad := decodeMessage([]byte(tt.body), "one message", math.MaxInt32)
			if bad != nil {
				t.Fatalf("refused: %s", bad.message)
			}
			kind := "request"
			switch {
			case m.isResponse():
				kind = "response"
			case m.id == nil:
				kind = "notification"
			}
			if kind != tt.kind {
				t.Errorf("decoded as a %s, want a %s", kind, tt.kind)
			}
		})
	}
}

// A well-framed message that is not valid JSON-RPC gets the error JSON-RPC
// 2.0 requires, with the request's id when it could be read, and a message
// that says what is wrong. These are what LSP and ACP peers were seen or
// feared to send; each once ended agentls or was never answered.
func TestDecodeMessageRefuses(t *testing.T) {
	tests := []struct {
		name, body string
		maxID      int64
		code       int64
		id         string // "" is null
		says       string
	}{
		{"a torn JSON body", `{"jsonrpc":`, math.MaxInt32, ParseError, "", "not valid JSON (expected one message)"},
		{"a body that is not JSON", `hello, agentls`, math.MaxInt32, ParseError, "", "not valid JSON"},
		{"an empty body", ``, math.MaxInt32, ParseError, "", "not valid JSON"},
		{"a batch array", `[{"jsonrpc":"2.0","id":5,"method":"agent/tasks"}]`, math.MaxInt32, InvalidRequest, "", "batch"},
		{"a JSON string, not an object", `"agent/tasks"`, math.MaxInt32, InvalidRequest, "", "not a JSON object"},
		{"a numeric method", `{"jsonrpc":"2.0","id":5,"method":42}`, math.MaxInt32, InvalidRequest, "5", `"method" must be a string`},
		{"a numeric method without id", `{"jsonrpc":"2.0","method":1,"params":{}}`, math.MaxInt32, InvalidRequest, "", `"method" must be a string`},
		{"an id of 1.5", `{"jsonrpc":"2.0","id":1.5,"method":"agent/tasks"}`, math.MaxInt32, InvalidRequest, "", "not an integer"},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"agent/tasks"}`, math.MaxInt32, InvalidRequest, "", `"id" must be a string or an integer`},
		{"a boolean id", `{"jsonrpc":"2.0","id":true,"method":"m"}`, math.MaxInt32, InvalidRequest, "", `"id" must be a string or an integer`},
		{"an empty string id", `{"jsonrpc":"2.0","id":"","method":"m"}`, math.MaxInt32, InvalidRequest, "", "non-empty string"},
		{"an id beyond 32 bits in LSP", `{"jsonrpc":"2.0","id":4294967296,"method":"agent/tasks"}`, math.MaxInt32, InvalidRequest, "", "not an integer between -2147483648 and 2147483647"},
		{"an id beyond 64 bits in ACP", `{"jsonrpc":"2.0","id":18446744073709551616,"method":"m"}`, math.MaxInt64, InvalidRequest, "", "not an integer between"},
		{"an empty method with an id", `{"jsonrpc":"2.0","id":6,"method":""}`, math.MaxInt32, InvalidRequest, "6", `"method" is empty`},
		{"an empty method with a string id", `{"jsonrpc":"2.0","id":"r6","method":"","params":{}}`, math.MaxInt32, InvalidRequest, `"r6"`, `"method" is empty`},
		{"no method and no result", `{"jsonrpc":"2.0","id":7}`, math.MaxInt32, InvalidRequest, "7", "a response needs"},
		{"neither method nor id", `{"jsonrpc":"2.0","params":{}}`, math.MaxInt32, InvalidRequest, "", `needs a "method"`},
		{"a wrong jsonrpc version", `{"jsonrpc":"1.0","id":8,"method":"agent/tasks"}`, math.MaxInt32, InvalidRequest, "8", `"jsonrpc" must be "2.0"`},
		{"no jsonrpc member", `{"id":1,"method":"m"}`, math.MaxInt32, InvalidRequest, "1", `"jsonrpc" must be "2.0"`},
		{"string params", `{"jsonrpc":"2.0","id":9,"method":"agent/tasks","params":"x"}`, math.MaxInt32, InvalidRequest, "9", `"params" must be`},
		{"an error that is not an error object", `{"jsonrpc":"2.0","id":9,"error":"no"}`, math.MaxInt32, InvalidRequest, "9", `"error" must be an object`},
		{"a stray closing brace after the object", `{"jsonrpc":"2.0","id":5,"method":"agent/tasks"}}`, math.MaxInt32, ParseError, "", "not valid JSON"},
		{"two objects in one message", `{"jsonrpc":"2.0","method":"initialized"} {"jsonrpc":"2.0","id":5,"method":"agent/tasks"}`, math.MaxInt32, ParseError, "", "not valid JSON"},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"m"} x`, math.MaxInt32, ParseError, "", "not valid JSON"},
		{"an array closed by a brace, then more", `[1}, "Content-Length: 2"`, math.MaxInt32, ParseError, "", "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, bad := decodeMessage([]byte(tt.body), "one message", tt.maxID)
			if bad == nil {
				t.Fatal("accepted")
			}
			if bad.code != tt.code || string(bad.id) != tt.id {
				t.Errorf("refused with code %d id %q (%s), want code %d id %q", bad.code, bad.id, bad.message, tt.code, tt.id)
			}
			if !strings.HasPrefix(bad.message, "agentls: ") || !strings.Contains(bad.message, tt.says) {
				t.Errorf("message %q, want it to say who answered and %q", bad.message, tt.says)
			}
		})
	}
}

// An id is matched however it is spelled, and 1 and "1" stay distinct.
func TestIDKeyMatchesAnIDHoweverSpelled(t *testing.T) {
	same := [][]string{
		{`7`, `7.0`, `7e0`},
		{`"7"`, `"\u0037"`},
		{`"run-1"`, `"run\u002d1"`},
		{`-2147483648`, `-2147483648.0`},
		{`9007199254740993`}, // beyond float64's integers: kept exact
	}
	seen := map[string]string{}
	for _, group := range same {
		first, ok := idKey(json.RawMessage(group[0]))
		if !ok {
			t.Fatalf("idKey(%s) refused", group[0])
		}
		if other, dup := seen[first]; dup {
			t.Errorf("%s and %s have the same key %q", group[0], other, first)
		}
		seen[first] = group[0]
		for _, raw := range group[1:] {
			if k, ok := idKey(json.RawMessage(raw)); !ok || k != first {
				t.Errorf("idKey(%s) = %q %v, want %q as for %s", raw, k, ok, first, group[0])
			}
		}
	}
	for _, raw := range []string{`1.5`, `{}`, `[1]`, `true`, `null`, ``} {
		if k, ok := idKey(json.RawMessage(raw)); ok {
			t.Errorf("idKey(%s) = %q, want it refused: no request has that id", raw, k)
		}
	}
}
