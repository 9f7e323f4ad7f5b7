package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/wire"
)

// hookScript writes an executable shell script outside the workspace.
func hookScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHooksDenyAddAndEndConfined runs real hook scripts: a before_tool
// hook denies a command with exit status 2 and the model reads its
// reason, lets another go on to its card; an after_tool hook's output is
// added to the result; a turn_end hook's output is a status event. The
// hooks run confined (a write of theirs into the workspace fails) unless
// their entry says sandbox = "none".
func TestHooksDenyAddAndEndConfined(t *testing.T) {
	if err := sandbox.CanSpawn(); err != nil {
		t.Skipf("this system cannot confine, so a confined hook cannot run: %v", err)
	}
	before := hookScript(t, `echo x > "$PWD/confined-hook-wrote" 2>/dev/null
case "$AGENTLS_HOOK_EVENT" in
*forbidden*) echo "commands naming forbidden are not allowed here"; exit 2;;
esac
exit 0
`)
	after := hookScript(t, `case "$AGENTLS_HOOK_EVENT" in *'"status":"completed"'*) echo "after-hook saw it complete";; esac`)
	end := hookScript(t, `echo x > "$PWD/unconfined-hook-wrote"; case "$AGENTLS_HOOK_EVENT" in *'"stopReason":"end_turn"'*) echo "turn over";; esac`)
	f := newFixture(t, "anthropic", func(o *Options) {
		o.Config.Hooks = config.Hooks{
			config.HookBeforeTool: {{Event: config.HookBeforeTool, Command: []string{before}, Tools: []string{"run_command"}, Timeout: 30 * time.Second, Sandbox: config.HookConfined}},
			config.HookAfterTool:  {{Event: config.HookAfterTool, Command: []string{after}, Timeout: 30 * time.Second, Sandbox: config.HookConfined}},
			config.HookTurnEnd:    {{Event: config.HookTurnEnd, Command: []string{end}, Timeout: 30 * time.Second, Sandbox: config.HookUnconfined}},
		}
	})
	writeFileT(t, filepath.Join(f.dir, "hello.txt"), "hello\n")
	calls := []modeltest.ToolCall{
		{ID: "c1", Name: "run_command", Input: `{"command":"echo forbidden"}`},
		{ID: "c2", Name: "run_command", Input: `{"command":"echo allowed"}`},
		{ID: "r1", Name: "read_file", Input: `{"path":"hello.txt"}`},
	}
	f.model.Script(modeltest.Turn{Text: "1", ToolCalls: calls}, modeltest.Turn{Text: "ok"})
	ap := &answer{opt: string(wire.OptionAllowOnce)}
	ev := &events{}
	f.run(t, RunRequest{Prompt: "go"}, TaskIO{Approver: ap, Events: ev})
	res := resultsOf(f.model.Requests()[1], calls)
	if len(res) != 3 {
		t.Fatalf("results %+v", res)
	}
	if !res[0].IsError || !strings.Contains(res[0].Content, "commands naming forbidden are not allowed here") {
		t.Errorf("the denied command's result: %q", res[0].Content)
	}
	if res[1].IsError || !strings.Contains(res[1].Content, "allowed") || !strings.Contains(res[1].Content, "after-hook saw it complete") {
		t.Errorf("the allowed command's result: %q", res[1].Content)
	}
	if !strings.Contains(res[2].Content, "after-hook saw it complete") {
		t.Errorf("the after_tool hook's output is not in read_file's result: %q", res[2].Content)
	}
	if n := len(ap.asked()); n != 1 {
		t.Errorf("%d cards: the hook must deny before the card, and never allow (the allowed command still asks)", n)
	}
	said := false
	for _, e := range ev.ofType("status") {
		said = said || strings.Contains(e.Message, "turn over")
	}
	if !said {
		t.Errorf("no status from the turn_end hook: %+v", ev.ofType("status"))
	}
	if _, err := os.Stat(filepath.Join(f.dir, "confined-hook-wrote")); err == nil {
		t.Error("a confined hook wrote into the workspace")
	}
	if _, err := os.Stat(filepath.Join(f.dir, "unconfined-hook-wrote")); err != nil {
		t.Errorf("the hook with sandbox = \"none\" did not run with full access: %v", err)
	}
}

// TestABeforeHookThatCannotRunDenies: a hook that fails, or cannot start,
// denies rather than let the call through unchecked.
func TestABeforeHookThatCannotRunDenies(t *testing.T) {
	f := newFixture(t, "anthropic", func(o *Options) {
		o.Config.Hooks = config.Hooks{config.HookBeforeTool: {{Event: config.HookBeforeTool, Command: []string{"/nonexistent/agentls-hook"}, Timeout: 5 * time.Second, Sandbox: config.HookUnconfined}}}
	})
	calls := []modeltest.ToolCall{{ID: "c1", Name: "run_command", Input: `{"command":"echo hi"}`}}
	f.model.Script(modeltest.Turn{Text: "1", ToolCalls: calls}, modeltest.Turn{Text: "ok"})
	ap := &answer{opt: string(wire.OptionAllowOnce)}
	f.run(t, RunRequest{Prompt: "go"}, TaskIO{Approver: ap})
	res := resultsOf(f.model.Requests()[1], calls)
	if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Content, "could not run") {
		t.Errorf("result %+v", res)
	}
	if len(ap.asked()) != 0 {
		t.Error("the call reached its card")
	}
}
