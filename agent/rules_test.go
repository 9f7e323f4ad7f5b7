package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/trust"
	"github.com/agentls/agentls/wire"
)

func withStore(o *Options) { o.Store = trust.OpenStore(filepath.Join(o.StateDir, "trust.json")) }

// TestAlwaysAllowSavesTheRuleTheCardShowed: a command's and a write's card
// name the rule allow_always saves; once chosen, exactly that command, and
// writes in that folder, run without a card in this workspace, and
// nothing else does; revoking the rule makes them ask again.
func TestAlwaysAllowSavesTheRuleTheCardShowed(t *testing.T) {
	f := newFixture(t, "anthropic", withStore)
	writeFileT(t, filepath.Join(f.dir, "src", "a.go"), "package a\n")
	first := []modeltest.ToolCall{
		{ID: "c1", Name: "run_command", Input: `{"command":"echo rule-ran"}`},
		{ID: "w1", Name: "write_file", Input: `{"path":"src/a.go","content":"package a // 1\n"}`},
	}
	f.model.Script(modeltest.Turn{Text: "1", ToolCalls: first}, modeltest.Turn{Text: "ok"})
	always := &answer{opt: string(wire.OptionAllowAlways)}
	f.run(t, RunRequest{Prompt: "first"}, TaskIO{Approver: always})
	cards := always.asked()
	if len(cards) != 2 {
		t.Fatalf("%d cards, want the command's and the write's", len(cards))
	}
	for i, want := range []string{"command: echo rule-ran", "write: src"} {
		if cards[i].Rule != want || !hasOption(cards[i], string(wire.OptionAllowAlways)) {
			t.Errorf("card %d rule %q options %+v, want rule %q with allow_always", i, cards[i].Rule, cards[i].Options, want)
		}
	}
	rules, err := f.core.Rules([]string{f.dir})
	if err != nil || len(rules) != 2 || rules[0].ID != "command: echo rule-ran" || rules[1].ID != "write: src" || rules[1].Workspace != f.dir {
		t.Fatalf("rules = %+v, %v", rules, err)
	}

	second := []modeltest.ToolCall{
		{ID: "c2", Name: "run_command", Input: `{"command":"echo rule-ran"}`},
		{ID: "w2", Name: "write_file", Input: `{"path":"src/deeper/b.go","content":"package deeper\n"}`},
		{ID: "c3", Name: "run_command", Input: `{"command":"echo rule-ran and-more"}`},
		{ID: "w3", Name: "write_file", Input: `{"path":"top.go","content":"package top\n"}`},
	}
	f.model.Script(modeltest.Turn{Text: "2", ToolCalls: second}, modeltest.Turn{Text: "ok"})
	deny := &answer{opt: string(wire.OptionRejectOnce)}
	f.run(t, RunRequest{Prompt: "second"}, TaskIO{Approver: deny})
	var asked []string
	for _, a := range deny.asked() {
		asked = append(asked, a.Title+" "+strings.Join(a.Command, " ")+a.Detail[:min(len(a.Detail), 30)])
	}
	if len(asked) != 2 {
		t.Fatalf("cards %q, want only the command with more words and the write outside src", asked)
	}
	res := resultsOf(f.model.Requests()[3], second)
	if len(res) != 4 || res[0].IsError || !strings.Contains(res[0].Content, "rule-ran") || res[1].IsError {
		t.Fatalf("results %+v: the rule's command and write did not run", res)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "src", "deeper", "b.go")); string(b) != "package deeper\n" {
		t.Errorf("the write under the rule's folder did not land: %q", b)
	}

	revoked, err := f.core.RevokeRule([]string{f.dir}, "command: echo rule-ran", "")
	if err != nil || len(revoked) != 1 {
		t.Fatalf("RevokeRule = %+v, %v", revoked, err)
	}
	if _, err := f.core.RevokeRule([]string{f.dir}, "command: nope", ""); err == nil || !strings.Contains(err.Error(), `"write: src"`) {
		t.Errorf("revoking an unknown rule: %v, want an error listing the rules", err)
	}
	f.model.Script(modeltest.Turn{Text: "3", ToolCalls: []modeltest.ToolCall{{ID: "c4", Name: "run_command", Input: `{"command":"echo rule-ran"}`}}}, modeltest.Turn{Text: "ok"})
	deny2 := &answer{opt: string(wire.OptionRejectOnce)}
	f.run(t, RunRequest{Prompt: "third"}, TaskIO{Approver: deny2})
	if len(deny2.asked()) != 1 {
		t.Errorf("a revoked rule's command ran without a card")
	}
}

// TestNoRuleIsOfferedForWhatCouldMeanMore: a command with shell syntax, a
// dangerous program, a write at the workspace's top or into repository
// metadata get no allow_always, and choosing it anyway saves nothing.
func TestNoRuleIsOfferedForWhatCouldMeanMore(t *testing.T) {
	f := newFixture(t, "anthropic", withStore)
	if err := os.MkdirAll(filepath.Join(f.dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	calls := []modeltest.ToolCall{
		{ID: "c1", Name: "run_command", Input: `{"command":"echo a; echo b","shell":true}`},
		{ID: "c2", Name: "run_command", Input: `{"command":"rm -f nothing-here"}`},
		{ID: "c3", Name: "run_command", Input: `{"command":"python3 -c print(1)"}`},
		{ID: "w1", Name: "write_file", Input: `{"path":"top.txt","content":"x\n"}`},
		{ID: "w2", Name: "write_file", Input: `{"path":".git/hooks/pre-commit","content":"x\n"}`},
	}
	f.model.Script(modeltest.Turn{Text: "1", ToolCalls: calls}, modeltest.Turn{Text: "ok"})
	ap := approverFunc(func(_ context.Context, a wire.Approval) (string, error) {
		if a.Rule != "" || hasOption(a, string(wire.OptionAllowAlways)) {
			t.Errorf("card %q offers the rule %q", a.Detail, a.Rule)
		}
		return string(wire.OptionAllowAlways), nil // not offered: a denial
	})
	f.run(t, RunRequest{Prompt: "go"}, TaskIO{Approver: ap})
	if rules, err := f.core.Rules(nil); err != nil || len(rules) != 0 {
		t.Errorf("rules saved: %+v, %v", rules, err)
	}
}

// TestARepositoryConfigCannotAddARule: no key of a workspace's config
// reaches the rules (they live only in the trust store, written only from
// a card or `agentls rules`): a repository's attempts are warned about and
// its command still asks.
func TestARepositoryConfigCannotAddARule(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	writeFileT(t, filepath.Join(root, ".agentls", "config.toml"), `
[rules]
command = ["echo repo-rule"]

[agent]
rules = ["echo repo-rule"]
mode = "autopilot"

[mcp]
rules = ["echo repo-rule"]
`)
	cfg := config.Load("", []string{root})
	if len(cfg.Diagnostics) < 3 {
		t.Errorf("diagnostics %+v: want each of the repository's rule keys warned about", cfg.Diagnostics)
	}
	f := newFixture(t, "anthropic", func(o *Options) {
		withStore(o)
		o.Root = root
		o.Config.Agent = cfg.Agent
		o.Config.MCP.Policy = cfg.MCP.Policy
	})
	f.ws = &testWorkspace{folders: []string{root}}
	f.model.Script(modeltest.Turn{Text: "1", ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "run_command", Input: `{"command":"echo repo-rule"}`}}}, modeltest.Turn{Text: "ok"})
	deny := &answer{opt: string(wire.OptionRejectOnce)}
	f.run(t, RunRequest{Prompt: "go"}, TaskIO{Approver: deny})
	if len(deny.asked()) != 1 {
		t.Errorf("the repository's command ran without a card")
	}
	if rules, _ := f.core.Rules(nil); len(rules) != 0 {
		t.Errorf("rules %+v", rules)
	}
}

// TestAPrefixRuleRunsOtherPathsInsideTheFolder: a card for a command that
// ends with paths inside its folder ("ls ./src") saves the prefix rule
// "ls ./*"; then the same program on other such paths runs without a card
// and with an option or a path outside it asks again.
func TestAPrefixRuleRunsOtherPathsInsideTheFolder(t *testing.T) {
	f := newFixture(t, "anthropic", withStore)
	writeFileT(t, filepath.Join(f.dir, "src", "deeper", "a.go"), "package a\n")
	f.model.Script(modeltest.Turn{Text: "1", ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "run_command", Input: `{"command":"ls ./src"}`}}}, modeltest.Turn{Text: "ok"})
	always := &answer{opt: string(wire.OptionAllowAlways)}
	f.run(t, RunRequest{Prompt: "first"}, TaskIO{Approver: always})
	if cards := always.asked(); len(cards) != 1 || cards[0].Rule != "command: ls ./*" || !strings.Contains(cards[0].Options[1].Name, "`ls` followed by any paths inside its folder") {
		t.Fatalf("cards %+v, want one naming the rule command: ls ./*", cards)
	}
	calls := []modeltest.ToolCall{
		{ID: "c2", Name: "run_command", Input: `{"command":"ls ./src/deeper ."}`},
		{ID: "c3", Name: "run_command", Input: `{"command":"ls -R ./src"}`},
		{ID: "c4", Name: "run_command", Input: `{"command":"ls ./src/../.."}`},
	}
	f.model.Script(modeltest.Turn{Text: "2", ToolCalls: calls}, modeltest.Turn{Text: "ok"})
	deny := &answer{opt: string(wire.OptionRejectOnce)}
	f.run(t, RunRequest{Prompt: "second"}, TaskIO{Approver: deny})
	var asked []string
	for _, a := range deny.asked() {
		asked = append(asked, strings.Join(a.Command, " "))
	}
	if len(asked) != 2 || asked[0] != "ls -R ./src" || asked[1] != "ls ./src/../.." {
		t.Fatalf("cards for %q, want only the one with an option and the one climbing out", asked)
	}
	if res := resultsOf(f.model.Requests()[3], calls); len(res) != 3 || res[0].IsError || !strings.Contains(res[0].Content, "a.go") {
		t.Fatalf("results %+v: the rule's command did not run", res)
	}
}
