package mcp

import (
	"context"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
)

// TestWorkspaceToolDefinitionIsBoundToItsLaunch: "always allow" is keyed on
// the tool's name and definition hash. A repo's server "fs" exposing the
// same tools as the one the user always-allowed in another repo (copying a
// public server's descriptions is free) must not inherit the allow: a
// workspace-tier tool's hash is bound to its workspace and launch
// fingerprint. A user-tier tool's hash stays the plain definition hash.
func TestWorkspaceToolDefinitionIsBoundToItsLaunch(t *testing.T) {
	gate := approveAll
	marker := newMarker(t)
	hashOf := func(s config.Server) string {
		t.Helper()
		// One registry at a time, closed here: the servers share a marker.
		r := NewRegistry([]config.Server{s}, Options{Gate: gate})
		defer func() {
			r.Close()
			testenv.WaitNoProcesses(t, markerOf(s), 10*time.Second)
		}()
		r.Start(context.Background())
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		r.Wait(ctx)
		for _, tool := range serverInfo(t, r, s.Name).Tools {
			if tool.ServerTool == "echo" {
				return tool.DefinitionHash
			}
		}
		t.Fatalf("%s has no echo tool", s.Name)
		return ""
	}
	ws := func(root string) config.Server {
		s := faultServer(t, "f")
		s.Origin, s.WorkspaceRoot = config.Workspace, root
		s.Args = []string{"-marker", marker}
		return s
	}
	a, b := ws("/repo-a"), ws("/repo-b")
	b.Args, b.Cwd = a.Args, a.Cwd // identical launch, different workspace
	ha, hb := hashOf(a), hashOf(b)
	if ha == hb {
		t.Errorf("the same tool of servers in two workspaces has one hash %s: an always-allow from one reaches the other", ha)
	}
	if again := hashOf(a); again != ha {
		t.Errorf("the hash is not stable across restarts: %s then %s", ha, again)
	}
	user := faultServer(t, "f")
	user.Args = a.Args
	hu := hashOf(user)
	if hu == ha || hu == hb {
		t.Errorf("a user-tier tool shares a workspace tool's hash")
	}
}
