package mcp

import (
	"bytes"
	"testing"
)

var jsonrpcLineCases = []struct {
	name string
	line string
	want bool
}{
	{"a response passes", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`, true},
	{"a notification passes", `{"method":"notifications/message","jsonrpc":"2.0","params":{"level":"info"}}`, true},
	{"jsonrpc after nested values passes", `{"result":{"jsonrpc":"","a":[1,{"b":"}"}]},"id":"x\"y","jsonrpc":"2.0"}`, true},
	{"whitespace between tokens passes", " { \"jsonrpc\" :\t\"2.0\" , \"id\" : 1 } ", true},
	{"the key matches ignoring case, as the decoder does", `{"JSONRPC":"2.0","id":1}`, true},
	{"an escaped key is judged by decoding", `{"json\u0072pc":"2.0"}`, true},
	{"a non-ASCII key that folds to jsonrpc is judged by decoding", "{\"j\u017fonrpc\":\"2.0\"}", true},
	{"an escaped value is not empty", `{"jsonrpc":"\u0000"}`, true},
	{"null after a string keeps the string", `{"jsonrpc":"2.0","jsonrpc":null}`, true},
	{"a batch of messages passes", `[{"jsonrpc":"2.0","method":"a"}, {"jsonrpc":"2.0","id":2,"result":{}}]`, true},
	{"a banner is junk", `Starting server on stdio...`, false},
	{"broken JSON is junk", `{"jsonrpc":"2.0","id":1`, false},
	{"an object with trailing garbage is junk", `{"jsonrpc":"2.0"} trailing`, false},
	{"a JSON log line is junk", `{"level":"info","msg":"ready"}`, false},
	{"jsonrpc only inside a nested value is junk", `{"result":{"jsonrpc":"2.0"}}`, false},
	{"jsonrpc only as a value is junk", `{"note":"jsonrpc"}`, false},
	{"an empty jsonrpc is junk", `{"jsonrpc":""}`, false},
	{"a null jsonrpc is junk", `{"jsonrpc":null}`, false},
	{"a numeric jsonrpc is junk (a type error)", `{"jsonrpc":2}`, false},
	{"a type error anywhere is junk even after a good value", `{"jsonrpc":"2.0","JsonRpc":{}}`, false},
	{"the last string wins", `{"jsonrpc":"2.0","jsonrpc":""}`, false},
	{"an empty object is junk", `{}`, false},
	{"an empty batch is junk", `[]`, false},
	{"a batch with one log line is junk", `[{"jsonrpc":"2.0"},{"level":"info"}]`, false},
	{"a batch with a null is junk", `[{"jsonrpc":"2.0"},null]`, false},
	{"a batch of scalars is junk", `[1,2]`, false},
	{"a number is junk", `42`, false},
	{"a string is junk", `"jsonrpc"`, false},
}

func TestIsJSONRPCGivesTheDecodersVerdict(t *testing.T) {
	for _, tc := range jsonrpcLineCases {
		t.Run(tc.name, func(t *testing.T) {
			line := []byte(tc.line)
			if ref := isJSONRPCDecoded(bytes.TrimSpace(line)); ref != tc.want {
				t.Fatalf("table is wrong: decoding %q says %v", tc.line, ref)
			}
			if got := isJSONRPC(line); got != tc.want {
				t.Errorf("isJSONRPC(%q) = %v, want %v", tc.line, got, tc.want)
			}
		})
	}
}

func FuzzIsJSONRPCGivesTheDecodersVerdict(f *testing.F) {
	for _, tc := range jsonrpcLineCases {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 || len(trimmed) > bigLine {
			return // the filter drops blank lines; big lines are checked at their ends
		}
		if got, want := isJSONRPC(line), isJSONRPCDecoded(trimmed); got != want {
			t.Errorf("isJSONRPC(%q) = %v, decoding says %v", line, got, want)
		}
	})
}

// BenchmarkIsJSONRPC is the check every server message passes before the SDK
// decodes it.
func BenchmarkIsJSONRPC(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"hello"}],"structuredContent":{"text":"hello"},"isError":false}}`)
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			isJSONRPC(line)
		}
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			isJSONRPCDecoded(line)
		}
	})
}
