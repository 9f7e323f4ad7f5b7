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

func TestTrustServerAsksOnlyWhenTheStoreDoesNotTrustTheFingerprint(t *testing.T) {
	bin := testenv.NodeBin(t, "mcp-server-filesystem")
	staleFP := strings.Repeat("0", 64) // approved once, for a command that has since changed
	for _, tc := range []struct {
		name    string
		before  func(t *testing.T, f *fixture, srv config.Server) // the store's state before the second TrustServer
		asks    bool
		wantErr error
	}{
		{name: "an approved and connected server is not asked again", before: func(t *testing.T, f *fixture, srv config.Server) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := f.core.TrustServer(ctx, srv.Name, &answer{opt: "allow_once"}); err != nil {
				t.Fatalf("first TrustServer: %v", err)
			}
			f.core.reg.Wait(ctx)
			if st := f.core.ServerList()[0].State; st != mcp.Connected {
				t.Fatalf("state after the first consent = %s, want connected", st)
			}
		}},
		{name: "a fingerprint approved elsewhere starts without a card", before: func(t *testing.T, f *fixture, srv config.Server) {
			if err := f.core.store.ApproveLaunch(srv.WorkspaceRoot, srv.Name, trust.ServerFingerprint(srv)); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a stale approval asks again", asks: true, wantErr: ErrDenied, before: func(t *testing.T, f *fixture, srv config.Server) {
			if err := f.core.store.ApproveLaunch(srv.WorkspaceRoot, srv.Name, staleFP); err != nil {
				t.Fatal(err)
			}
			if ls, err := f.core.store.LaunchState(srv.WorkspaceRoot, srv.Name, trust.ServerFingerprint(srv)); ls != trust.ApprovalStale {
				t.Fatalf("store = %s, %v; want approval_stale", ls, err)
			}
		}},
		{name: "a server never approved asks", asks: true, wantErr: ErrDenied, before: func(*testing.T, *fixture, config.Server) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "anthropic", withServers(t, func(root string) []config.Server {
				return []config.Server{{Name: "repofs", Origin: config.Workspace, WorkspaceRoot: root, Command: bin, Args: []string{root}, Cwd: root,
					Source: config.Source{File: filepath.Join(root, ".agentls", "config.toml"), Line: 1}}}
			}))
			srv, _ := f.core.reg.Server("repofs")
			tc.before(t, f, srv)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ap := &answer{opt: "reject_once"} // a card, if shown, is rejected: only an unasked start can connect
			st, err := f.core.TrustServer(ctx, "repofs", ap)
			if asked := len(ap.asked()); (asked > 0) != tc.asks {
				t.Fatalf("TrustServer showed %d launch cards, want asked=%v", asked, tc.asks)
			}
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("TrustServer = %s, %v; want error %v", st, err, tc.wantErr)
			}
			if tc.asks {
				if st == mcp.Connected || st == mcp.Connecting {
					t.Errorf("a rejected card left the server %s", st)
				}
				return
			}
			if st != mcp.Connected && st != mcp.Connecting {
				t.Fatalf("TrustServer of a trusted server = %s, want connecting or connected", st)
			}
			f.core.reg.Wait(ctx)
			if st := f.core.ServerList()[0].State; st != mcp.Connected {
				t.Errorf("state = %s, want connected", st)
			}
		})
	}
}
