// Package mcpservetest drives an `agentls mcp serve` (or an editor
// session's listener) the way an outside agent does, with the official
// MCP Go SDK's client: for the tests of mcpserve and of the editors.
package mcpservetest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bearer adds the token to every request it sends through Next
// (http.DefaultTransport when nil).
type Bearer struct {
	Token string
	Next  http.RoundTripper
}

// RoundTrip sends r with the token.
func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.Token)
	next := b.Next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(r)
}

// Connect is a client named name connected over tr at revision version
// ("" = the SDK's newest), closed when the test ends.
func Connect(t testing.TB, tr sdk.Transport, name, version string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, opts).Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("%s connects: %v", name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Tools are the names of the tools the server lists, in its order.
func Tools(t testing.TB, cs *sdk.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// Call calls a tool and returns its text and isError.
func Call(t testing.TB, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}
