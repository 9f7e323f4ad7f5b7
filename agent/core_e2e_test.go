package agent

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/trust"
)

// withFilesystemServer gives the fixture's Core a real registry running the
// npm server-filesystem on the workspace folder, and the given policy rules.
func withFilesystemServer(t *testing.T, rules ...config.PolicyRule) func(*Options) {
	bin := testenv.NodeBin(t, "mcp-server-filesystem")
	return withServers(t, func(root string) []config.Server {
		return []config.Server{{Name: "fs", Origin: config.User, Command: bin, Args: []string{root}, Cwd: root}}
	}, rules...)
}

// withServers gives the fixture's Core a real registry over the servers
// (built from the workspace root), a trust store in the state dir, and
// checks at cleanup that no server process outlives the registry. Every
// server must name the root in its args, the marker the check looks for.
func withServers(t *testing.T, servers func(root string) []config.Server, rules ...config.PolicyRule) func(*Options) {
	return func(o *Options) {
		o.Config.MCP.Servers = servers(o.Root)
		o.Config.MCP.Policy = rules
		o.Store = trust.OpenStore(filepath.Join(o.StateDir, "trust.json"))
		reg := mcp.NewRegistry(o.Config.MCP.Servers, mcp.Options{Reserved: tools.BuiltinNames(), Gate: LaunchGate(o.Store), Logf: t.Logf})
		ctx, cancel := context.WithCancel(context.Background())
		reg.Start(ctx)
		root := o.Root
		t.Cleanup(func() {
			reg.Close()
			cancel()
			testenv.WaitNoProcesses(t, root, 10*time.Second)
		})
		o.Registry = reg
	}
}

func allowRule(pattern, action string) config.PolicyRule {
	return config.PolicyRule{Pattern: pattern, Action: action, Origin: config.User, Source: config.Source{File: "config.toml", Line: 1}}
}

func readCall(dir string) modeltest.Turn {
	return modeltest.Turn{Text: "Reading it.", ToolCalls: []modeltest.ToolCall{
		{ID: "call_fs", Name: "fs__read_text_file", Input: `{"path":"` + filepath.Join(dir, "hello.txt") + `"}`},
	}}
}

func TestE2EAllowListedMCPCallCarriesTheRealResult(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			f := newFixture(t, format, withFilesystemServer(t, allowRule("fs__read_text_file", "allow")))
			writeFileT(t, filepath.Join(f.dir, "hello.txt"), "hello from the real filesystem server\n")
			f.model.Script(readCall(f.dir), modeltest.Turn{Text: "It greets you."})
			ev := &events{}
			res := f.run(t, RunRequest{Prompt: "what does hello.txt say?"}, TaskIO{Events: ev})
			if res.StopReason != "end_turn" || res.Text != "It greets you." {
				t.Fatalf("result = %+v", res)
			}
			reqs := f.model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			names := strings.Join(reqs[0].ToolNames(), ",")
			if !strings.Contains(names, "fs__read_text_file") || !strings.Contains(names, "read_file") {
				t.Errorf("tools offered: %s", names)
			}
			trs := reqs[1].ToolResults()
			if len(trs) != 1 || trs[0].ToolUseID != "call_fs" || trs[0].IsError || !strings.Contains(trs[0].Content, "hello from the real filesystem server") {
				t.Fatalf("tool results = %+v, want the file's text from the server", trs)
			}
			if n := len(ev.ofType("approval")); n != 0 {
				t.Errorf("an allow-listed call asked (%d approval events)", n)
			}
			calls := ev.ofType("tool_call")
			if len(calls) == 0 || calls[0].Server != "fs" || calls[0].Title != "fs · read_text_file" {
				t.Errorf("tool_call events = %+v", calls)
			}
		})
	}
}

func TestE2EMCPCallWithoutAllowEntryAndNoApproverIsDenied(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			f := newFixture(t, format, withFilesystemServer(t))
			writeFileT(t, filepath.Join(f.dir, "hello.txt"), "secret-ish content\n")
			f.model.Script(readCall(f.dir), modeltest.Turn{Text: "I was not allowed."})
			res := f.run(t, RunRequest{Prompt: "read hello.txt"}, TaskIO{})
			if res.StopReason != "end_turn" {
				t.Fatalf("result = %+v", res)
			}
			trs := f.model.Requests()[1].ToolResults()
			if len(trs) != 1 || trs[0].Content != "ERROR: denied by the user" || !trs[0].IsError {
				t.Fatalf("tool results = %+v, want the denial", trs)
			}
		})
	}
}

func TestE2EDenyPolicyRefusesWithoutAsking(t *testing.T) {
	f := newFixture(t, "anthropic", withFilesystemServer(t, allowRule("fs__*", "deny")))
	writeFileT(t, filepath.Join(f.dir, "hello.txt"), "x\n")
	f.model.Script(readCall(f.dir), modeltest.Turn{Text: "ok"})
	ap := &answer{opt: "allow_once"}
	f.run(t, RunRequest{Prompt: "read"}, TaskIO{Approver: ap})
	trs := f.model.Requests()[1].ToolResults()
	if len(trs) != 1 || !strings.HasPrefix(trs[0].Content, "ERROR: denied by policy: ") {
		t.Fatalf("tool results = %+v", trs)
	}
	if n := len(ap.asked()); n != 0 {
		t.Errorf("a denied tool asked %d times", n)
	}
}

func TestE2EAlwaysAllowIsRememberedForThatDefinition(t *testing.T) {
	f := newFixture(t, "openai", withFilesystemServer(t))
	writeFileT(t, filepath.Join(f.dir, "hello.txt"), "remember me\n")
	f.model.Script(readCall(f.dir), modeltest.Turn{Text: "first"}, readCall(f.dir), modeltest.Turn{Text: "second"})
	ap := &answer{opt: "allow_always"}
	f.run(t, RunRequest{Prompt: "read"}, TaskIO{Approver: ap})
	asked := ap.asked()
	if len(asked) != 1 || asked[0].Kind != "mcp_call" || asked[0].Server != "fs" || asked[0].Tool != "read_text_file" ||
		!strings.HasPrefix(asked[0].Detail, "fs · read_text_file\n") || !strings.Contains(asked[0].Detail, "hello.txt") {
		t.Fatalf("approvals = %+v, want one mcp_call card with server · tool and the arguments", asked)
	}
	var opts []string
	for _, o := range asked[0].Options {
		opts = append(opts, o.OptionID+"="+o.Name)
	}
	if strings.Join(opts, ",") != "allow_once=Allow once,allow_always=Always allow fs__read_text_file,reject_once=Deny" {
		t.Errorf("options = %v", opts)
	}
	f.run(t, RunRequest{Prompt: "read again"}, TaskIO{Approver: ap})
	if n := len(ap.asked()); n != 1 {
		t.Errorf("always-allowed tool asked again (%d cards)", n)
	}
	trs := f.model.Requests()[3].ToolResults()
	if len(trs) != 1 || !strings.Contains(trs[0].Content, "remember me") {
		t.Errorf("second call results = %+v", trs)
	}
}

func TestE2EServerListPolicyColumnMatchesTheCallGate(t *testing.T) {
	f := newFixture(t, "anthropic", withFilesystemServer(t, allowRule("fs__read_text_file", "allow"), allowRule("fs__write_file", "deny")))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f.core.reg.Wait(ctx)
	rows := f.core.ServerList()
	if len(rows) != 1 || rows[0].State != mcp.Connected {
		t.Fatalf("server list = %+v", rows)
	}
	policy := map[string]trust.Action{}
	for _, tr := range rows[0].Tools {
		policy[tr.Name] = tr.Policy
	}
	if policy["fs__read_text_file"] != trust.Allow || policy["fs__write_file"] != trust.Deny || policy["fs__list_directory"] != trust.Ask {
		t.Errorf("policy column = %v", policy)
	}
}
