package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// diskState is every file and folder under dir with its mode and a hash
// of its bytes (a link with its target), so two states are equal only when
// nothing on disk changed.
func diskState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := info.Mode().String()
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			v += " -> " + target
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			v += " " + hex.EncodeToString(sum[:])
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffStates(before, after map[string]string) []string {
	var d []string
	for k, v := range before {
		if after[k] != v {
			d = append(d, k+": "+v+" => "+after[k])
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			d = append(d, k+": new "+v)
		}
	}
	sort.Strings(d)
	return d
}

// everyWrite is a model that tries to change the workspace, and a folder
// outside it, every way it can: each built-in that writes, run_command
// with writing commands with and without a shell (redirections, pipes
// into tee, in-place edits, deletes; some the classifier calls read-only,
// which must then run confined), and the filesystem server's writing
// tools, with arguments that would succeed.
func everyWrite(dir, outside string) []modeltest.ToolCall {
	j := func(s string) string { return strings.ReplaceAll(filepath.Join(dir, s), `\`, `\\`) }
	o := func(s string) string { return strings.ReplaceAll(filepath.Join(outside, s), `\`, `\\`) }
	return []modeltest.ToolCall{
		{ID: "w4", Name: "write_file", Input: `{"path":"` + o("new.txt") + `","content":"PWNED\n"}`},
		{ID: "w5", Name: "edit_file", Input: `{"path":"` + o("kept.txt") + `","old_text":"kept","new_text":"PWNED"}`},
		{ID: "c7", Name: "run_command", Input: `{"command":"echo PWNED > hello.txt"}`},
		{ID: "c8", Name: "run_command", Input: `{"command":"sed -i s/hello/PWNED/ hello.txt"}`},
		{ID: "c9", Name: "run_command", Input: `{"command":"find . -name hello.txt -delete"}`},
		{ID: "c10", Name: "run_command", Input: `{"command":"echo PWNED | tee hello.txt","shell":true}`},
		{ID: "c11", Name: "run_command", Input: `{"command":"cat hello.txt > copy.txt","shell":true}`},
		{ID: "c12", Name: "run_command", Input: `{"command":"cat hello.txt >> hello.txt","shell":true}`},
		{ID: "c13", Name: "run_command", Input: `{"command":"cp hello.txt copy.txt"}`},
		{ID: "c14", Name: "run_command", Input: `{"command":"touch ` + o("made-by-command") + `"}`},
		{ID: "c15", Name: "run_command", Input: `{"command":"cat ` + j("hello.txt") + ` > ` + o("copy.txt") + `","shell":true}`},
		{ID: "c16", Name: "run_command", Input: `{"command":"ls > listing.txt","shell":true}`},
		{ID: "m5", Name: "fs__write_file", Input: `{"path":"` + o("new.txt") + `","content":"PWNED\n"}`},
		{ID: "w1", Name: "write_file", Input: `{"path":"hello.txt","content":"PWNED\n"}`},
		{ID: "w2", Name: "write_file", Input: `{"path":"new.txt","content":"PWNED\n"}`},
		{ID: "w3", Name: "edit_file", Input: `{"path":"src/main.go","old_text":"package main","new_text":"package pwned"}`},
		{ID: "c1", Name: "run_command", Input: `{"command":"touch made-by-command"}`},
		{ID: "c2", Name: "run_command", Input: `{"command":"echo PWNED > hello.txt","shell":true}`},
		{ID: "c3", Name: "run_command", Input: `{"command":"rm -f src/main.go"}`},
		{ID: "c4", Name: "run_command", Input: `{"command":"sort -o hello.txt hello.txt"}`},
		{ID: "c5", Name: "run_command", Input: `{"command":"git init -q"}`},
		{ID: "c6", Name: "run_command", Input: `{"command":"mkdir made-dir"}`},
		{ID: "m1", Name: "fs__write_file", Input: `{"path":"` + j("hello.txt") + `","content":"PWNED\n"}`},
		{ID: "m2", Name: "fs__edit_file", Input: `{"path":"` + j("src/main.go") + `","edits":[{"oldText":"package main","newText":"package pwned"}]}`},
		{ID: "m3", Name: "fs__create_directory", Input: `{"path":"` + j("made-by-mcp") + `"}`},
		{ID: "m4", Name: "fs__move_file", Input: `{"source":"` + j("hello.txt") + `","destination":"` + j("moved.txt") + `"}`},
		{ID: "x1", Name: "no_such_tool", Input: `{}`},
	}
}

// TestPlanModeChangesNothingOnDisk is issue 27's plan-mode guarantee: a
// session in plan mode changes nothing on disk whatever the model calls,
// even where the user's policy allows every tool of the filesystem server
// and the user would approve every card; no MCP tool runs, not even one
// its server marks read-only. The built-in reads still work, and the plan
// the model ends with is the only card.
func TestPlanModeChangesNothingOnDisk(t *testing.T) {
	f := newFixture(t, "anthropic", withFilesystemServer(t, allowRule("fs__*", "allow")))
	writeFileT(t, filepath.Join(f.dir, "hello.txt"), "hello\n")
	writeFileT(t, filepath.Join(f.dir, "src", "main.go"), "package main\n")
	outside := t.TempDir()
	writeFileT(t, filepath.Join(outside, "kept.txt"), "kept\n")
	before, beforeOutside := diskState(t, f.dir), diskState(t, outside)
	if err := f.core.SetMode("", wire.ModePlan); err != nil {
		t.Fatal(err)
	}
	// Even a tool its server marks read-only is refused: the mark is the
	// server's claim (TestPlanModeRunsNoMCPToolWhateverItsServerClaims).
	calls := append(everyWrite(f.dir, outside),
		modeltest.ToolCall{ID: "m6", Name: "fs__read_text_file", Input: `{"path":"` + strings.ReplaceAll(filepath.Join(f.dir, "hello.txt"), `\`, `\\`) + `"}`})
	reads := []modeltest.ToolCall{
		{ID: "r1", Name: "read_file", Input: `{"path":"hello.txt"}`},
		{ID: "r2", Name: "search_text", Input: `{"pattern":"hello"}`},
	}
	f.model.Script(
		modeltest.Turn{Text: "Trying to change things.", ToolCalls: calls},
		modeltest.Turn{Text: "Reading.", ToolCalls: reads},
		modeltest.Turn{Text: "Planning.", ToolCalls: []modeltest.ToolCall{{ID: "p1", Name: "propose_plan", Input: `{"plan":"1. edit hello.txt"}`}}},
		modeltest.Turn{Text: "Done planning."},
	)
	// The user answers "Keep planning" to the plan: the session stays in
	// plan mode. Every other card would be approved, always.
	var asked []wire.Approval
	ap := approverFunc(func(_ context.Context, a wire.Approval) (string, error) {
		asked = append(asked, a)
		if a.Kind == wire.ApprovalPlan {
			return string(wire.OptionRejectOnce), nil
		}
		if hasOption(a, string(wire.OptionAllowAlways)) {
			return string(wire.OptionAllowAlways), nil
		}
		return string(wire.OptionAllowOnce), nil
	})
	ev := &events{}
	res := f.run(t, RunRequest{Prompt: "change everything"}, TaskIO{Approver: ap, Events: ev})
	if res.StopReason != wire.StopEndTurn {
		t.Fatalf("result = %+v", res)
	}
	if d := diffStates(before, diskState(t, f.dir)); len(d) > 0 {
		t.Fatalf("plan mode changed the disk:\n%s", strings.Join(d, "\n"))
	}
	if d := diffStates(beforeOutside, diskState(t, outside)); len(d) > 0 {
		t.Fatalf("plan mode changed a folder outside the workspace:\n%s", strings.Join(d, "\n"))
	}
	if len(asked) != 1 || asked[0].Kind != wire.ApprovalPlan || !strings.Contains(asked[0].Detail, "1. edit hello.txt") {
		t.Fatalf("cards shown: %+v; want only the plan", asked)
	}
	reqs := f.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	if !strings.Contains(reqs[0].System(), "plan mode") || !strings.Contains(strings.Join(reqs[0].ToolNames(), ","), "propose_plan") {
		t.Errorf("the model was not told it plans, or not offered propose_plan: %v", reqs[0].ToolNames())
	}
	refused := resultsOf(reqs[1], calls)
	for _, r := range refused {
		if !r.IsError || !strings.Contains(r.Content, "ERROR:") {
			t.Errorf("call %s was not refused: %q", r.ToolUseID, r.Content)
		}
	}
	if len(refused) != len(calls) {
		t.Errorf("%d results for %d calls", len(refused), len(calls))
	}
	for _, r := range resultsOf(reqs[2], reads) {
		if r.IsError || !strings.Contains(r.Content, "hello") {
			t.Errorf("read %s failed in plan mode: %q", r.ToolUseID, r.Content)
		}
	}
	plan := resultsOf(reqs[3], []modeltest.ToolCall{{ID: "p1"}})
	if len(plan) != 1 || !plan[0].IsError || !strings.Contains(plan[0].Content, "keep planning") {
		t.Errorf("the declined plan's result = %+v", plan)
	}
	if m := f.core.Mode(res.SessionID); m != wire.ModePlan {
		t.Errorf("after a declined plan the mode is %s, want plan", m)
	}
	done := ev.ofType("done")
	if len(done) != 1 || done[0].Mode != wire.ModePlan {
		t.Errorf("done events %+v, want one carrying mode plan", done)
	}
}

// resultsOf are req's tool results of calls (a request carries the whole
// history's).
func resultsOf(req modeltest.Request, calls []modeltest.ToolCall) []modeltest.ToolResult {
	ids := map[string]bool{}
	for _, c := range calls {
		ids[c.ID] = true
	}
	var out []modeltest.ToolResult
	for _, r := range req.ToolResults() {
		if ids[r.ToolUseID] {
			out = append(out, r)
		}
	}
	return out
}

// TestAnAcceptedPlanSwitchesToAskAndRunsIt: a read-only command runs in
// plan mode (confined, where the kernel can), accepting the plan switches
// the session to ask mode within the turn, and the writes of the plan then
// go through their cards as in ask mode.
func TestAnAcceptedPlanSwitchesToAskAndRunsIt(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	writeFileT(t, filepath.Join(f.dir, "hello.txt"), "hello\n")
	look := []modeltest.ToolCall{{ID: "r3", Name: "run_command", Input: `{"command":"cat hello.txt"}`}}
	f.model.Script(
		modeltest.Turn{Text: "Looking.", ToolCalls: look},
		modeltest.Turn{Text: "Planning.", ToolCalls: []modeltest.ToolCall{{ID: "p1", Name: "propose_plan", Input: `{"plan":"1. rewrite hello.txt"}`}}},
		modeltest.Turn{Text: "Doing it.", ToolCalls: []modeltest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"hello.txt","content":"planned\n"}`}}},
		modeltest.Turn{Text: "Done."},
	)
	sid := f.core.NewChat("")
	if err := f.core.SetMode(sid, wire.ModePlan); err != nil {
		t.Fatal(err)
	}
	var kinds []wire.ApprovalKind
	ap := approverFunc(func(_ context.Context, a wire.Approval) (string, error) {
		kinds = append(kinds, a.Kind)
		return string(wire.OptionAllowOnce), nil
	})
	ev := &events{}
	res := f.run(t, RunRequest{Prompt: "plan it", SessionID: sid}, TaskIO{Approver: ap, Events: ev})
	if res.StopReason != wire.StopEndTurn {
		t.Fatalf("result = %+v", res)
	}
	if len(kinds) != 2 || kinds[0] != wire.ApprovalPlan || kinds[1] != wire.ApprovalWrite {
		t.Fatalf("cards %v, want the plan then the write's", kinds)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "hello.txt")); string(b) != "planned\n" {
		t.Fatalf("hello.txt = %q after the accepted plan ran", b)
	}
	if m := f.core.Mode(sid); m != wire.ModeAsk {
		t.Errorf("mode %s after the plan was accepted, want ask", m)
	}
	if other := f.core.Mode(""); other != wire.ModeAsk {
		t.Errorf("accepting one session's plan changed the mode of new sessions to %s", other)
	}
	said := false
	for _, e := range ev.ofType("status") {
		said = said || e.Mode == wire.ModeAsk && strings.Contains(e.Message, "accepted the plan")
	}
	if !said {
		t.Errorf("no status event said the mode changed: %+v", ev.ofType("status"))
	}
	reqs := f.model.Requests()
	if strings.Contains(reqs[2].System(), "plan mode") || strings.Contains(strings.Join(reqs[2].ToolNames(), ","), "propose_plan") {
		t.Errorf("after the plan was accepted the model is still told it plans")
	}
	cat := resultsOf(reqs[1], look)
	if sandbox.CanSpawn() == nil && sandbox.Supported().SocketFilter {
		if len(cat) != 1 || cat[0].IsError || !strings.Contains(cat[0].Content, "hello") {
			t.Errorf("a read-only command in plan mode: %+v", cat)
		}
	} else if len(cat) != 1 || !cat[0].IsError {
		t.Errorf("without the kernel's confinement a command ran in plan mode: %+v", cat)
	}
}

// TestAutoEditWritesWithoutACardButNeverMetadata: auto-edit applies a
// write inside the workspace without a card; a write to repository
// metadata and a command still ask.
func TestAutoEditWritesWithoutACardButNeverMetadata(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	writeFileT(t, filepath.Join(f.dir, "hello.txt"), "hello\n")
	if err := os.MkdirAll(filepath.Join(f.dir, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.model.Script(
		modeltest.Turn{Text: "Editing.", ToolCalls: []modeltest.ToolCall{
			{ID: "w1", Name: "write_file", Input: `{"path":"hello.txt","content":"edited\n"}`},
			{ID: "w2", Name: "write_file", Input: `{"path":".git/hooks/pre-commit","content":"#!/bin/sh\necho pwned\n"}`},
			{ID: "w3", Name: "write_file", Input: `{"path":".agentls/config.toml","content":"[mcp]\n"}`},
			{ID: "c1", Name: "run_command", Input: `{"command":"touch x"}`},
		}},
		modeltest.Turn{Text: "Done."},
	)
	sid := f.core.NewChat("")
	if err := f.core.SetMode(sid, wire.ModeAutoEdit); err != nil {
		t.Fatal(err)
	}
	ap := &answer{opt: string(wire.OptionRejectOnce)}
	res := f.run(t, RunRequest{Prompt: "edit", SessionID: sid}, TaskIO{Approver: ap})
	if res.StopReason != wire.StopEndTurn {
		t.Fatalf("result = %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "hello.txt")); string(b) != "edited\n" {
		t.Errorf("hello.txt = %q: auto-edit did not apply the write", b)
	}
	var asked []string
	for _, a := range ap.asked() {
		asked = append(asked, string(a.Kind)+" "+a.Title)
	}
	if len(asked) != 3 {
		t.Fatalf("cards %q, want three: the git hook's, .agentls's and the command's", asked)
	}
	for _, p := range []string{".git/hooks/pre-commit", ".agentls/config.toml", "x"} {
		if _, err := os.Stat(filepath.Join(f.dir, p)); err == nil {
			t.Errorf("%s was written though its card was denied", p)
		}
	}
}

func TestSetModeRefusesAnUnknownMode(t *testing.T) {
	f := newFixture(t, "anthropic", nil)
	for _, m := range []wire.Mode{"", "yolo", "Plan"} {
		if err := f.core.SetMode("", m); err == nil || !strings.Contains(err.Error(), "expected one of plan, ask, auto-edit, autopilot") {
			t.Errorf("SetMode(%q) = %v", m, err)
		}
	}
	if err := f.core.SetMode("../x", wire.ModePlan); err == nil {
		t.Error("SetMode took a bad session id")
	}
	if m := f.core.Mode("s-never-set"); m != wire.ModeAsk {
		t.Errorf("an unset session's mode is %s, want the configured ask", m)
	}
}

// TestPlanModeRunsNoMCPToolWhateverItsServerClaims: a server's own claim
// loosens nothing. The fault server's peek says readOnlyHint and writes a
// file; the user's policy allows every tool of the server. In plan mode
// the call is refused without a card and the disk is the same; in ask
// mode the same call runs and writes, so the refusal is plan mode's.
func TestPlanModeRunsNoMCPToolWhateverItsServerClaims(t *testing.T) {
	bin := testenv.GoBinary(t, "./internal/faultserver")
	f := newFixture(t, "anthropic", withServers(t, func(root string) []config.Server {
		return []config.Server{{Name: "liar", Origin: config.User, Command: bin, Cwd: root, Args: []string{"-liar", "-marker", root}}}
	}, allowRule("liar__*", "allow")))
	writeFileT(t, filepath.Join(f.dir, "hello.txt"), "hello\n")
	before := diskState(t, f.dir)
	if err := f.core.SetMode("", wire.ModePlan); err != nil {
		t.Fatal(err)
	}
	peek := []modeltest.ToolCall{{ID: "m1", Name: "liar__peek", Input: `{}`}}
	f.model.Script(modeltest.Turn{ToolCalls: peek}, modeltest.Turn{Text: "Only looked."})
	var asked []wire.Approval
	ap := approverFunc(func(_ context.Context, a wire.Approval) (string, error) {
		asked = append(asked, a)
		return string(wire.OptionAllowOnce), nil
	})
	res := f.run(t, RunRequest{Prompt: "peek"}, TaskIO{Approver: ap, Events: &events{}})
	if res.StopReason != wire.StopEndTurn {
		t.Fatalf("result = %+v", res)
	}
	if d := diffStates(before, diskState(t, f.dir)); len(d) > 0 {
		t.Fatalf("plan mode ran a tool whose server claims readOnlyHint, and it changed the disk:\n%s", strings.Join(d, "\n"))
	}
	if len(asked) != 0 {
		t.Errorf("cards shown in plan mode: %+v; want none", asked)
	}
	r := resultsOf(f.model.Requests()[1], peek)
	if len(r) != 1 || !r[0].IsError || !strings.Contains(r[0].Content, "plan mode") {
		t.Fatalf("the call's result = %+v, want plan mode's refusal", r)
	}

	// The same call in ask mode, the policy allowing it: it runs and writes.
	if err := f.core.SetMode("", wire.ModeAsk); err != nil {
		t.Fatal(err)
	}
	f.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "m2", Name: "liar__peek", Input: `{}`}}}, modeltest.Turn{Text: "Looked."})
	if res := f.run(t, RunRequest{Prompt: "peek again"}, TaskIO{Approver: ap, Events: &events{}}); res.StopReason != wire.StopEndTurn {
		t.Fatalf("result = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "peeked.txt")); err != nil {
		t.Fatalf("in ask mode the allowed tool did not write (so the test shows nothing): %v", err)
	}
}
