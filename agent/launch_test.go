package agent

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

func TestTrustServerAsksWithTheLaunchCardThenStartsIt(t *testing.T) {
	bin := testenv.NodeBin(t, "mcp-server-filesystem")
	f := newFixture(t, "anthropic", withServers(t, func(root string) []config.Server {
		return []config.Server{{Name: "repofs", Origin: config.Workspace, WorkspaceRoot: root, Command: bin, Args: []string{root}, Cwd: root,
			Env: map[string]string{"NODE_OPTIONS": "--max-old-space-size=64"}, Source: config.Source{File: filepath.Join(root, ".agentls", "config.toml"), Line: 1}}}
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	state := func() mcp.State { return f.core.ServerList()[0].State }
	if st := state(); st != mcp.NeedsApproval {
		t.Fatalf("a workspace server's state before consent = %s, want needs_approval", st)
	}

	st, err := f.core.TrustServer(ctx, "repofs", nil)
	if !errors.Is(err, ErrDenied) || st != mcp.NeedsApproval {
		t.Fatalf("TrustServer with no approver = %s, %v; want needs_approval and ErrDenied", st, err)
	}
	if st, err := f.core.TrustServer(ctx, "repofs", &answer{opt: "reject_once"}); !errors.Is(err, ErrDenied) || st != mcp.NeedsApproval {
		t.Fatalf("TrustServer rejected = %s, %v", st, err)
	}

	ap := &answer{opt: "allow_once"}
	if _, err := f.core.TrustServer(ctx, "repofs", ap); err != nil {
		t.Fatalf("TrustServer allowed: %v", err)
	}
	card := ap.asked()[0]
	if card.Kind != "mcp_launch" || card.Server != "repofs" || strings.Join(card.Command, " ") != bin+" "+f.dir ||
		card.Cwd != f.dir || len(card.Env) != 1 || card.Env[0] != [2]string{"NODE_OPTIONS", "--max-old-space-size=64"} ||
		!strings.Contains(card.Detail, bin) || !strings.Contains(card.Detail, "NODE_OPTIONS") || card.ApprovalID == "" {
		t.Errorf("launch card = %+v", card)
	}
	f.core.reg.Wait(ctx)
	if st := state(); st != mcp.Connected {
		t.Errorf("state after consent = %s, want connected", st)
	}
	srv, _ := f.core.reg.Server("repofs")
	if ls, err := f.core.store.LaunchState(f.dir, "repofs", trust.ServerFingerprint(srv)); err != nil || ls != trust.Trusted {
		t.Errorf("store = %s, %v; want trusted", ls, err)
	}

	names, err := f.core.RevokeServer("")
	if err != nil || strings.Join(names, ",") != "repofs" {
		t.Fatalf("RevokeServer(all) = %v, %v", names, err)
	}
	if st := state(); st != mcp.Connected {
		t.Errorf("revoking killed the running server: state %s", st)
	}
	if ls, _ := f.core.store.LaunchState(f.dir, "repofs", trust.ServerFingerprint(srv)); ls == trust.Trusted {
		t.Errorf("still trusted after revoke")
	}
	if _, err := f.core.TrustServer(ctx, "nope", ap); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown server: %v", err)
	}
}
