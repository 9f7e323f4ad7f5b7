//go:build unix

package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
)

// A server whose config names no call_timeout gets the documented default
// of 120 s, stdio and remote alike: the config loader fills it in, a
// registry entry without one gets it too, and a call past it ends saying
// so. The deadline is read, and expired at once, through the registry's
// timer hook, so the test does not wait 120 s.
func TestCallTimeoutDefaultsTo120Seconds(t *testing.T) {
	remote := startRemoteFault(t)
	dir := t.TempDir()
	userConfig := filepath.Join(dir, "config.toml")
	toml := fmt.Sprintf("[mcp.servers.local]\ncommand = %q\nargs = [\"-marker\", %q]\n\n[mcp.servers.remote]\nurl = \"http://%s/mcp\"\n",
		faultBin, newMarker(t), remote.addr)
	if err := os.WriteFile(userConfig, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Load(userConfig, nil)
	if len(cfg.Diagnostics) > 0 {
		t.Fatalf("config: %v", cfg.Diagnostics)
	}
	servers := cfg.MCP.Servers
	for _, s := range servers {
		if s.CallTimeout != 120*time.Second {
			t.Errorf("%s: loaded call_timeout %v, want the default 120s", s.Name, s.CallTimeout)
		}
	}
	// An entry built without one (an editor's, a test's) gets it as well.
	bare := faultServer(t, "bare")
	bare.CallTimeout = 0
	servers = append(servers, bare)

	r := NewRegistry(servers, Options{})
	var mu sync.Mutex
	var given []time.Duration
	r.newDeadline = func(d time.Duration, expire func()) *callDeadline {
		mu.Lock()
		given = append(given, d)
		mu.Unlock()
		return newCallDeadline(0, expire) // as if 120 s had passed
	}
	t.Cleanup(func() { r.Close() })
	r.Start(t.Context())
	for _, name := range []string{"local", "remote", "bare"} {
		eventually(t, name+" to connect", func() bool { return serverInfo(t, r, name).State == Connected })
		wantError(t, call(t, r, name+"__hang", `{}`), "ERROR: "+name+": ", "did not answer within call_timeout (2m0s)")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(given) != 3 {
		t.Fatalf("deadlines started: %v, want one per call", given)
	}
	for _, d := range given {
		if d != 120*time.Second {
			t.Errorf("a call's deadline was %v, want 120s", d)
		}
	}
}
