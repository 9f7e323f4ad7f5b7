package mcp

import (
	"io"
	"strconv"
	"strings"
	"testing"
)

func TestLineFilter(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":7,"result":{"text":"` + strings.Repeat("x", 300) + `"}}`
	bigTailID := `{"result":{"text":"` + strings.Repeat("x", 300) + `"},"jsonrpc":"2.0","id":"a\"b"}`
	bigNoID := `{"result":{"id":1,"text":"` + strings.Repeat("x", 300) + `"},"jsonrpc":"2.0","id":9,"x":{}}`
	tests := []struct {
		name     string
		in       string
		max      int
		wantOut  string
		wantJunk []string
	}{
		{"JSON-RPC lines pass through", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","method":"x"}` + "\r\n", 1000,
			`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","method":"x"}` + "\n", nil},
		{"a last line without newline still passes", `{"jsonrpc":"2.0","id":1,"result":{}}`, 1000, `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n", nil},
		{"banners, broken JSON, JSON logs and scalars are junk", "Starting...\n{oops\n{\"level\":\"info\"}\n42\n[]\n\n  \n", 1000,
			"", []string{"Starting...", "{oops", `{"level":"info"}`, "42", "[]"}},
		{"a batch of JSON-RPC messages passes", `[{"jsonrpc":"2.0","method":"a"}]` + "\n", 1000, `[{"jsonrpc":"2.0","method":"a"}]` + "\n", nil},
		{"an oversized answer becomes an error for its id (id first)", big + "\n" + `{"jsonrpc":"2.0","id":8,"result":{}}` + "\n", 100,
			`{"error":{"code":-32603,"message":"the server's answer was ` + itoa(len(big)) + ` bytes, over the 100-byte limit on one message; it was dropped"},"id":7,"jsonrpc":"2.0"}` + "\n" +
				`{"jsonrpc":"2.0","id":8,"result":{}}` + "\n", []string{"(dropped a " + itoa(len(big)) + "-byte message"}},
		{"an oversized answer becomes an error for its id (id last)", bigTailID + "\n", 100,
			`{"error":{"code":-32603,"message":"the server's answer was ` + itoa(len(bigTailID)) + ` bytes, over the 100-byte limit on one message; it was dropped"},"id":"a\"b","jsonrpc":"2.0"}` + "\n", []string{"(dropped"}},
		{"an oversized line whose id cannot be found is only dropped", bigNoID + "\n", 100, "", []string{"(dropped"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var junk []string
			f := newLineFilter(io.NopCloser(strings.NewReader(tc.in)), tc.max, func(l []byte) { junk = append(junk, string(l)) })
			out, err := io.ReadAll(f)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.wantOut {
				t.Errorf("out:\n%s\nwant:\n%s", out, tc.wantOut)
			}
			if len(junk) != len(tc.wantJunk) {
				t.Fatalf("junk %q, want %q", junk, tc.wantJunk)
			}
			for i := range junk {
				if !strings.HasPrefix(junk[i], tc.wantJunk[i]) {
					t.Errorf("junk[%d] = %q, want prefix %q", i, junk[i], tc.wantJunk[i])
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
