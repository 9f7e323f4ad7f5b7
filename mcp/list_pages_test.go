package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
)

// TestListsFollowEveryPage: a server that pages its lists (here one item a
// page) still has every tool and every resource seen, not the first page.
func TestListsFollowEveryPage(t *testing.T) {
	r := startRegistry(t, []config.Server{faultServer(t, "f", "-tools", "12", "-page-size", "1")}, Options{MaxToolsPerServer: 1000})
	info := serverInfo(t, r, "f")
	if info.State != Connected {
		t.Fatalf("state %s: %s", info.State, info.Error)
	}
	names := map[string]bool{}
	for _, tool := range info.Tools {
		names[tool.ServerTool] = true
	}
	for _, want := range []string{"echo", "tool_000", "tool_011"} {
		if !names[want] {
			t.Errorf("tool %q missing from %d listed tools", want, len(info.Tools))
		}
	}
	if len(info.Tools) < 23 {
		t.Errorf("%d tools listed, want the 12 numbered ones and the fault server's own", len(info.Tools))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := r.Resources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, x := range res {
		uris = append(uris, x.URI)
	}
	if strings.Join(uris, ",") != "fault://blob,fault://text" {
		t.Errorf("resources %v", uris)
	}
}
