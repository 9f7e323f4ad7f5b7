package tools

import (
	"context"
	"encoding/json"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// toolTest runs built-ins directly against a temp workspace. It is the
// loop's side of each call (Call): it records the cards asked and answers
// them all alike (deny), as the loop's gate would.
type toolTest struct {
	t       *testing.T
	dir     string
	ws      *testWorkspace
	env     *Env
	asks    []wire.Approval
	deny    bool
	nobody  bool // no approver: an ask is refused as it is with nobody to ask
	allowed int  // Gate calls that were allowed without asking
	// onAsk runs while a card is open, before it is answered: the user
	// changing the file meanwhile.
	onAsk func(card wire.Approval)
}

func newToolTest(t *testing.T) *toolTest {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	tt := &toolTest{t: t, dir: dir, ws: &testWorkspace{folders: []string{dir}}}
	tt.env = &Env{Workspace: tt.ws, MaxBytes: 64 << 10}
	return tt
}

func (tt *toolTest) Gate(_ context.Context, d trust.Decision, card wire.Approval, _ Keep) (string, error) {
	switch d.Action {
	case trust.Deny:
		return "", &Denied{"ERROR: denied by policy: " + d.Reason}
	case trust.Allow:
		tt.allowed++
		return "", nil
	}
	if tt.nobody {
		return "", &Denied{"ERROR: denied: " + d.Reason + ", and there is nobody to ask"}
	}
	tt.asks = append(tt.asks, card)
	if tt.onAsk != nil {
		tt.onAsk(card)
	}
	if tt.deny {
		return "", &Denied{"ERROR: denied by the user"}
	}
	return string(wire.OptionAllowOnce), nil
}

func (tt *toolTest) Progress(string)  {}
func (tt *toolTest) ServerLog(string) {}
func (tt *toolTest) Elicit(context.Context, mcp.Elicitation) mcp.ElicitAnswer {
	return mcp.ElicitAnswer{Action: wire.ElicitDecline}
}

func (tt *toolTest) call(name, args string) (string, bool, string) {
	tt.t.Helper()
	b, ok := Builtin(name)
	if !ok {
		tt.t.Fatalf("no built-in %s", name)
	}
	o := Run(context.Background(), tt.env, b, b.Plan(tt.env, json.RawMessage(args)).Timeout, tt, json.RawMessage(args))
	return o.Text, o.IsError, string(o.Status)
}

func TestCapTextSaysHowMuchWasCut(t *testing.T) {
	got := capText(strings.Repeat("é", 100), 51)
	if !strings.HasPrefix(got, strings.Repeat("é", 25)+"\n[... 150 of 200 bytes cut]") {
		t.Errorf("capText = %q", got)
	}
}

func TestBuiltinTimeoutSaysWhichToolAndHowLong(t *testing.T) {
	slow := &builtin{def: readFileTool.def, timeout: 10 * time.Millisecond,
		run: func(ctx context.Context, _ *Env, _ Call, _ json.RawMessage) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		}}
	tt := newToolTest(t)
	o := Run(context.Background(), tt.env, slow, slow.Plan(tt.env, nil).Timeout, tt, nil)
	out, isErr, status := o.Text, o.IsError, o.Status
	if !isErr || status != "failed" || out != "ERROR: read_file timed out after 10ms" {
		t.Errorf("timed out builtin = %q %v %s", out, isErr, status)
	}
}
