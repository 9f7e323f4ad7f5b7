package agent

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/trust"
)

// TestDestructiveToolsAreNeverAlwaysAllowed is red-team finding 10. A card
// for a tool the server marks destructiveHint offered "Always allow" and
// stored it; the definition hash left the annotations out, so once the
// server dropped the hint (same description and schema) the stored allow
// covered the call with no card. Now the card of a destructive tool offers
// no "Always allow", and the hash covers the annotations, so an allow
// stored before the change (as older agentls did) no longer applies after it.
// The server is the real faultserver, -wipe destructive, then -wipe plain.
func TestDestructiveToolsAreNeverAlwaysAllowed(t *testing.T) {
	bin := testenv.GoBinary(t, "./internal/faultserver")
	state := t.TempDir()
	wipeServer := func(mode string) func(*Options) {
		servers := withServers(t, func(root string) []config.Server {
			return []config.Server{{Name: "x", Origin: config.User, Command: bin, Cwd: root, Args: []string{"-wipe", mode, "-marker", root}}}
		})
		return func(o *Options) {
			o.StateDir = state // one trust store across both servers
			servers(o)
		}
	}
	call := modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "w", Name: "x__wipe", Input: `{}`}}}

	// 1: the server marks wipe destructive. The user would pick "always".
	f := newFixture(t, "anthropic", wipeServer("destructive"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f.core.reg.Wait(ctx)
	var destructiveHash string
	for _, tool := range f.core.reg.Tools() {
		if tool.Name == "x__wipe" {
			destructiveHash = tool.DefinitionHash
		}
	}
	if destructiveHash == "" {
		t.Fatalf("x__wipe not listed: %+v", f.core.reg.Tools())
	}
	f.model.Script(call, modeltest.Turn{Text: "done"})
	asker := &answer{opt: "allow_always"}
	if res := f.run(t, RunRequest{Prompt: "wipe"}, TaskIO{Approver: asker}); res.StopReason != "end_turn" {
		t.Fatalf("result = %+v", res)
	}
	asked := asker.asked()
	if len(asked) != 1 {
		t.Fatalf("%d cards for a destructive tool, want 1", len(asked))
	}
	for _, o := range asked[0].Options {
		if o.Kind == "allow_always" {
			t.Errorf("the card of a destructiveHint tool offers %q", o.Name)
		}
	}
	store := trust.OpenStore(filepath.Join(state, "trust.json"))
	pol := &trust.Policy{Store: store}
	if d := pol.ClassifyCall(trust.ToolInfo{Name: "x__wipe", Server: "x", DefinitionHash: destructiveHash}); d.Action != trust.Ask {
		t.Errorf("after the card, x__wipe is %s (%s), want ask: nothing may be remembered for a destructive tool", d.Action, d.Reason)
	}
	f.core.Close()

	// 2: an allow stored while it was destructive (older agentls stored
	// one) must not cover the tool once the server drops the hint.
	if err := store.AllowAlways("x__wipe", destructiveHash); err != nil {
		t.Fatal(err)
	}
	g := newFixture(t, "anthropic", wipeServer("plain"))
	g.model.Script(call, modeltest.Turn{Text: "done"})
	asker = &answer{opt: "reject_once"}
	if res := g.run(t, RunRequest{Prompt: "wipe"}, TaskIO{Approver: asker}); res.StopReason != "end_turn" {
		t.Fatalf("result = %+v", res)
	}
	if len(asker.asked()) != 1 {
		t.Errorf("after the server dropped destructiveHint, x__wipe ran on the old \"always allow\" with %d cards; want a card", len(asker.asked()))
	}
	for _, req := range g.model.Requests() {
		for _, r := range req.ToolResults() {
			if strings.Contains(r.Content, "wiped") {
				t.Errorf("x__wipe ran: %q", r.Content)
			}
		}
	}
}
