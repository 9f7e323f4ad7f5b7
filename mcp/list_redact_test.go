package mcp

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/config"
)

// TestServerListRedactsStderr: a server that fails often prints its config
// or the request that failed, token included. The stderr tail and the
// error go into the server list, `agentls mcp list`, doctor and the issue
// report; none of them may carry the secret.
func TestServerListRedactsStderr(t *testing.T) {
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	s := faultServer(t, "f", "-stderr", "auth failed: GITHUB_TOKEN="+token, "-exit-at-once", "1")
	r := startRegistry(t, []config.Server{s}, Options{})
	info := serverInfo(t, r, "f")
	if info.State != Failed {
		t.Fatalf("state %s, want failed", info.State)
	}
	if !strings.Contains(info.StderrTail, "auth failed") {
		t.Fatalf("stderr tail lost the line itself: %q", info.StderrTail)
	}
	for what, text := range map[string]string{"stderr tail": info.StderrTail, "error": info.Error} {
		if strings.Contains(text, token) {
			t.Errorf("%s carries the token: %q", what, text)
		}
	}
}
