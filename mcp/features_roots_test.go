package mcp

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
)

// TestRootsReachAServerThatWasConnecting: the workspace folders change
// while a server is still in its slow handshake, after its client was made
// with the old folders; once connected it is brought up to date, so the
// roots it asks for (the fault server's roots tool sends roots/list) are
// the new folders, never the old ones.
func TestRootsReachAServerThatWasConnecting(t *testing.T) {
	ws1, ws2 := filepath.Join(t.TempDir(), "first"), filepath.Join(t.TempDir(), "second")
	srv := faultServer(t, "f", "-roots", "-handshake-delay", "1s")
	r := NewRegistry([]config.Server{srv}, Options{Roots: []string{ws1}})
	t.Cleanup(func() {
		r.Close()
		testenv.WaitNoProcesses(t, markerOf(srv), 10*time.Second)
	})
	r.Start(context.Background())
	// The attempt reads the roots when it starts; the handshake then waits
	// a second, so the change below lands while it connects.
	eventually(t, "the server to be connecting", func() bool { return serverInfo(t, r, "f").State == Connecting })
	time.Sleep(200 * time.Millisecond)
	r.SetRoots([]string{ws2})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r.Wait(ctx)
	if info := serverInfo(t, r, "f"); info.State != Connected {
		t.Fatalf("state %s: %s", info.State, info.Error)
	}
	uri1 := (&url.URL{Scheme: "file", Path: ws1}).String()
	uri2 := (&url.URL{Scheme: "file", Path: ws2}).String()
	eventually(t, "the server to get the new roots", func() bool {
		res := call(t, r, "f__roots", `{}`)
		if res.IsError {
			t.Fatalf("roots: %s", res.Text)
		}
		return strings.Contains(res.Text, uri2) && !strings.Contains(res.Text, uri1)
	})
}
