package agent

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/wire"
)

// blockingApprover is a user who takes their time: each card it is asked
// stays open until the test answers it or the card's ctx ends.
type blockingApprover struct {
	mu    sync.Mutex
	cards []wire.Approval
	shown chan wire.Approval // one per card, as it is shown
	reply chan string        // the user's answer to the open card
}

func newBlockingApprover() *blockingApprover {
	return &blockingApprover{shown: make(chan wire.Approval, 8), reply: make(chan string, 1)}
}

func (b *blockingApprover) RequestApproval(ctx context.Context, a wire.Approval) (string, error) {
	b.mu.Lock()
	b.cards = append(b.cards, a)
	b.mu.Unlock()
	b.shown <- a
	select {
	case opt := <-b.reply:
		return opt, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (b *blockingApprover) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.cards)
}

func (b *blockingApprover) waitCard(t *testing.T) wire.Approval {
	t.Helper()
	select {
	case a := <-b.shown:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("no launch card was shown")
		return wire.Approval{}
	}
}

type trustResult struct {
	state mcp.State
	err   error
}

func trustAsync(c *Core, ctx context.Context, name string, ap Approver) <-chan trustResult {
	ch := make(chan trustResult, 1)
	go func() {
		st, err := c.TrustServer(ctx, name, ap)
		ch <- trustResult{st, err}
	}()
	return ch
}

func waitResult(t *testing.T, who string, ch <-chan trustResult) trustResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second):
		t.Fatalf("the %s TrustServer never returned", who)
		return trustResult{}
	}
}

// waitJoined waits until a second caller joined the card on screen, and
// fails as soon as that caller shows a card of its own instead.
func waitJoined(t *testing.T, c *Core, name string, second *blockingApprover) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for c.launchJoiners(name) != 1 {
		if n := second.count(); n > 0 {
			t.Fatalf("the second TrustServer showed its own launch card while the first was on screen (%d cards)", n)
		}
		if time.Now().After(deadline) {
			t.Fatal("the second TrustServer neither joined the card on screen nor asked")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTrustServerJoinsTheLaunchCardAlreadyOnScreen(t *testing.T) {
	bin := testenv.NodeBin(t, "mcp-server-filesystem")
	for _, tc := range []struct {
		name string
		// act is what happens once the first card is on screen and the
		// second caller has joined it.
		act         func(t *testing.T, first, second *blockingApprover, cancelFirst, cancelSecond context.CancelFunc)
		wantFirst   error // nil, ErrDenied or context.Canceled (errors.Is)
		wantSecond  error
		secondCards int // cards the second caller's approver showed
		connects    bool
	}{
		{name: "an allowed card starts the server for both callers; one card",
			act:      func(t *testing.T, first, _ *blockingApprover, _, _ context.CancelFunc) { first.reply <- "allow_once" },
			connects: true},
		{name: "a rejected card denies both callers; one card",
			act:       func(t *testing.T, first, _ *blockingApprover, _, _ context.CancelFunc) { first.reply <- "reject_once" },
			wantFirst: ErrDenied, wantSecond: ErrDenied},
		{name: "a joiner whose ctx ends stops waiting and the card stays up for the first",
			act: func(t *testing.T, first, _ *blockingApprover, _, cancelSecond context.CancelFunc) {
				cancelSecond()
				first.reply <- "allow_once"
			},
			wantSecond: context.Canceled, connects: true},
		{name: "when the first caller goes away unanswered the joiner asks its own user",
			act: func(t *testing.T, _, second *blockingApprover, cancelFirst, _ context.CancelFunc) {
				cancelFirst()
				second.waitCard(t)
				second.reply <- "allow_once"
			},
			wantFirst: ErrDenied, secondCards: 1, connects: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "anthropic", withServers(t, func(root string) []config.Server {
				return []config.Server{{Name: "repofs", Origin: config.Workspace, WorkspaceRoot: root, Command: bin, Args: []string{root}, Cwd: root,
					Source: config.Source{File: filepath.Join(root, ".agentls", "config.toml"), Line: 1}}}
			}))
			ctx1, cancel1 := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel1()
			ctx2, cancel2 := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel2()
			first, second := newBlockingApprover(), newBlockingApprover()

			r1 := trustAsync(f.core, ctx1, "repofs", first) // the card asked at editor start-up
			first.waitCard(t)
			r2 := trustAsync(f.core, ctx2, "repofs", second) // the client's trust command
			waitJoined(t, f.core, "repofs", second)
			tc.act(t, first, second, cancel1, cancel2)

			res1, res2 := waitResult(t, "first", r1), waitResult(t, "second", r2)
			for _, c := range []struct {
				who  string
				got  trustResult
				want error
			}{{"first", res1, tc.wantFirst}, {"second", res2, tc.wantSecond}} {
				if (c.want == nil) != (c.got.err == nil) || (c.want != nil && !errors.Is(c.got.err, c.want)) {
					t.Errorf("%s TrustServer = %s, %v; want error %v", c.who, c.got.state, c.got.err, c.want)
				}
			}
			if tc.wantFirst == nil && tc.wantSecond == nil && res1.state != res2.state {
				t.Errorf("the joiner got state %s, the asker %s: want the same result", res2.state, res1.state)
			}
			if n := first.count(); n != 1 {
				t.Errorf("the first caller's approver showed %d cards, want 1", n)
			}
			if n := second.count(); n != tc.secondCards {
				t.Errorf("the second caller's approver showed %d cards, want %d", n, tc.secondCards)
			}
			if n := f.core.launchJoiners("repofs"); n != 0 {
				t.Errorf("%d callers still recorded as waiting after both returned", n)
			}
			waitCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			f.core.reg.Wait(waitCtx)
			st := f.core.ServerList()[0].State
			if tc.connects && st != mcp.Connected {
				t.Errorf("state = %s, want connected", st)
			}
			if !tc.connects && st != mcp.NeedsApproval {
				t.Errorf("state = %s, want needs_approval (nobody allowed it)", st)
			}
		})
	}
}
