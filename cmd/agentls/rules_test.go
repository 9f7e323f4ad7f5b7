package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

// TestRulesListAndRevoke runs the real binary over a trust store holding
// two rules of this workspace and one of another: list shows this one's,
// --all both, --json agent/rules's shape; revoke forgets one, and an
// unknown id says which there are.
func TestRulesListAndRevoke(t *testing.T) {
	bin := testenv.Agentls(t)
	tmp := t.TempDir()
	tmp, _ = filepath.EvalSymlinks(tmp)
	ws, other, state := filepath.Join(tmp, "ws"), filepath.Join(tmp, "other"), filepath.Join(tmp, "state")
	for _, d := range []string{ws, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	store := trust.OpenStore(filepath.Join(state, "agentls", "trust.json"))
	cmd, _ := trust.CommandRule([]string{"go", "test", "./..."}, false)
	wr, _ := trust.WriteRule("src/api/x.go")
	for _, add := range []struct {
		root string
		r    trust.Rule
	}{{ws, cmd}, {ws, wr}, {other, cmd}} {
		if err := store.AddRule(add.root, add.r); err != nil {
			t.Fatal(err)
		}
	}
	rules := func(args ...string) (int, string, string) {
		t.Helper()
		c := exec.Command(bin, append([]string{"rules"}, args...)...)
		c.Dir = ws
		c.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
		var out, errb strings.Builder
		c.Stdout, c.Stderr = &out, &errb
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}
	code, out, errs := rules("list")
	if code != 0 || strings.Count(out, "\n") != 2 || !strings.Contains(out, "command: go test ./*\t"+ws) || !strings.Contains(out, "write: src/api\t"+ws) {
		t.Fatalf("list: exit %d\n%s%s", code, out, errs)
	}
	if _, out, _ := rules("list", "--all"); strings.Count(out, "\n") != 3 || !strings.Contains(out, other) {
		t.Errorf("list --all:\n%s", out)
	}
	_, out, _ = rules("list", "--json")
	var res wire.RulesResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Rules) != 2 || res.Rules[0].Argv[0] != "go" || res.Rules[1].Folder != "src/api" {
		t.Errorf("list --json: %v\n%s", err, out)
	}
	if code, out, errs := rules("revoke", "command:", "go", "test", "./*"); code != 0 || !strings.Contains(out, "revoked command: go test ./*") {
		t.Fatalf("revoke: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := rules("revoke", "command: nope"); code != 1 || !strings.Contains(errs, `"write: src/api"`) {
		t.Errorf("revoke of an unknown id: exit %d: %s", code, errs)
	}
	if _, ok := store.CommandAllowed(ws, []string{"go", "test", "./..."}, false); ok {
		t.Error("the revoked rule still allows")
	}
	if _, ok := store.CommandAllowed(other, []string{"go", "test", "./..."}, false); !ok {
		t.Error("revoking this workspace's rule revoked another's")
	}
	if code, _, _ := rules("frobnicate"); code != 2 {
		t.Errorf("an unknown subcommand exits %d, want 2", code)
	}
}

// TestRunModePlanWritesNothing: `agentls run --mode plan` refuses a write
// and says the mode on its done event; a bad mode is a usage error.
func TestRunModePlanWritesNothing(t *testing.T) {
	e := newRunEnv(t, "anthropic", "")
	if err := os.WriteFile(filepath.Join(e.ws, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.model.Script(modeltest.Turn{Text: "writing", ToolCalls: []modeltest.ToolCall{
		{ID: "w1", Name: "write_file", Input: `{"path":"hello.txt","content":"PWNED\n"}`},
	}}, modeltest.Turn{Text: "could not"})
	code, stdout, stderr := e.run(t, "--json", "--mode", "plan", "change it")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "hello.txt")); string(b) != "hello\n" {
		t.Errorf("hello.txt = %q under --mode plan", b)
	}
	var last wire.Event
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		json.Unmarshal(sc.Bytes(), &last)
	}
	if last.Type != wire.EventDone || last.Mode != wire.ModePlan {
		t.Errorf("last event %+v, want done with mode plan", last)
	}
	if code, _, stderr := e.run(t, "--mode", "yolo", "x"); code != 2 || !strings.Contains(stderr, "expected one of plan, ask, auto-edit, autopilot") {
		t.Errorf("--mode yolo: exit %d: %s", code, stderr)
	}
}

// TestRulesListAndRevokeADenyRule: an "always deny" rule is listed with
// its id (and in --json what it refuses), and revoked by that id.
func TestRulesListAndRevokeADenyRule(t *testing.T) {
	bin := testenv.Agentls(t)
	tmp := t.TempDir()
	tmp, _ = filepath.EvalSymlinks(tmp)
	ws, state := filepath.Join(tmp, "ws"), filepath.Join(tmp, "state")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	store := trust.OpenStore(filepath.Join(state, "agentls", "trust.json"))
	deny, err := trust.DenyCommandRule([]string{"rm -rf build"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.AddRule(ws, deny); err != nil {
		t.Fatal(err)
	}
	rules := func(args ...string) (string, error) {
		c := exec.Command(bin, append([]string{"rules"}, args...)...)
		c.Dir = ws
		c.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
		out, err := c.CombinedOutput()
		return string(out), err
	}
	out, err := rules("list")
	if err != nil || !strings.Contains(out, "deny command: rm -rf build\t"+ws) {
		t.Fatalf("list: %v\n%s", err, out)
	}
	out, _ = rules("list", "--json")
	var res wire.RulesResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Rules) != 1 || !res.Rules[0].Deny || res.Rules[0].ID != "deny command: rm -rf build" ||
		!strings.Contains(res.Rules[0].Description, "never run `rm -rf build`") {
		t.Errorf("list --json: %v\n%s", err, out)
	}
	if out, err := rules("revoke", "deny command: rm -rf build"); err != nil || !strings.Contains(out, "revoked deny command: rm -rf build") {
		t.Fatalf("revoke: %v\n%s", err, out)
	}
	if _, ok := store.CommandDenied(ws, []string{"rm", "-rf", "build"}, false); ok {
		t.Error("the revoked deny rule still refuses")
	}
}
