package server

import (
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// Valid messages of every kind decode to the jsonrpc2 type conn expects.
func TestDecodeMessageAcceptsValidMessages(t *testing.T) {
	tests := []struct {
		name, body string
		want       string // %T of the message
	}{
		{"a call with a number id", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, "*jsonrpc2.Call"},
		{"a call with a string id and no params", `{"jsonrpc":"2.0","id":"a","method":"shutdown"}`, "*jsonrpc2.Call"},
		{"a notification", `{"jsonrpc":"2.0","method":"exit"}`, "*jsonrpc2.Notification"},
		{"a null id is a notification", `{"jsonrpc":"2.0","id":null,"method":"exit"}`, "*jsonrpc2.Notification"},
		{"array params", `{"jsonrpc":"2.0","id":2,"method":"m","params":[1]}`, "*jsonrpc2.Call"},
		{"a response with a result", `{"jsonrpc":"2.0","id":3,"result":null}`, "*jsonrpc2.Response"},
		{"a response with an error", `{"jsonrpc":"2.0","id":-4,"error":{"code":-32601,"message":"no"}}`, "*jsonrpc2.Response"},
		{"the largest 32-bit id", `{"jsonrpc":"2.0","id":2147483647,"method":"m"}`, "*jsonrpc2.Call"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, bad := decodeMessage([]byte(tt.body))
			if bad != nil {
				t.Fatalf("refused: %s", bad.Message)
			}
			if got := typeName(msg); got != tt.want {
				t.Errorf("decoded as %s, want %s", got, tt.want)
			}
		})
	}
}

func typeName(m jsonrpc2.Message) string {
	switch m.(type) {
	case *jsonrpc2.Call:
		return "*jsonrpc2.Call"
	case *jsonrpc2.Notification:
		return "*jsonrpc2.Notification"
	case *jsonrpc2.Response:
		return "*jsonrpc2.Response"
	}
	return "unknown"
}

// The invalid cases the wire test does not reach through a process.
func TestDecodeMessageRefuses(t *testing.T) {
	tests := []struct {
		name, body string
		code       jsonrpc2.Code
		id         string
	}{
		{"an empty string id (jsonrpc2 would answer id 0)", `{"jsonrpc":"2.0","id":"","method":"m"}`, jsonrpc2.InvalidRequest, ""},
		{"a boolean id", `{"jsonrpc":"2.0","id":true,"method":"m"}`, jsonrpc2.InvalidRequest, ""},
		{"no jsonrpc member", `{"id":1,"method":"m"}`, jsonrpc2.InvalidRequest, "1"},
		{"neither method nor id", `{"jsonrpc":"2.0","params":{}}`, jsonrpc2.InvalidRequest, ""},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"m"} x`, jsonrpc2.ParseError, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, bad := decodeMessage([]byte(tt.body))
			if bad == nil {
				t.Fatal("accepted")
			}
			if bad.Code != tt.code || string(bad.ID) != tt.id {
				t.Errorf("refused with code %d id %q (%s), want code %d id %q", bad.Code, bad.ID, bad.Message, tt.code, tt.id)
			}
		})
	}
}
