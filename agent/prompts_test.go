package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/wire"
)

// promptFixture runs the fault server "f" with its prompts, recording every
// prompts/get in the returned file, under the given policy rules.
func promptFixture(t *testing.T, rules ...config.PolicyRule) (*fixture, string) {
	t.Helper()
	bin := testenv.GoBinary(t, "./internal/faultserver")
	log := filepath.Join(t.TempDir(), "prompts.log")
	f := newFixture(t, "openai", withServers(t, func(root string) []config.Server {
		return []config.Server{{Name: "f", Origin: config.User, Command: bin, Cwd: root,
			Args: []string{"-prompts-log", log, "-prompt", "evil\x1b[2J\u202eprompt", "-marker", root}}}
	}, rules...))
	f.core.WaitServers(t.Context())
	if len(f.core.Prompts()) == 0 {
		t.Fatalf("the fault server lists no prompts: %+v", f.core.Servers())
	}
	return f, log
}

func promptsGot(t *testing.T, log string) string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// TestPromptRunFollowsTheServerPolicy: a prompt run as a task asks before
// prompts/get (policy ask, the default), and its message becomes the
// user's turn the model gets; a rejected card or a deny rule ends the task
// with an error and the server is never asked for the prompt; arguments
// are checked against the listing before anything is asked.
func TestPromptRunFollowsTheServerPolicy(t *testing.T) {
	t.Run("ask, allowed", func(t *testing.T) {
		f, log := promptFixture(t)
		f.model.Script(modeltest.Turn{Text: "reviewed"})
		ans := &answer{opt: string(wire.OptionAllowOnce)}
		res := f.run(t, RunRequest{MCPPrompt: &PromptRef{Server: "f", Name: "review", Arguments: map[string]string{"focus": "errors"}}}, TaskIO{Approver: ans})
		if res.StopReason != wire.StopEndTurn || res.Text != "reviewed" {
			t.Fatalf("result %+v", res)
		}
		asked := ans.asked()
		if len(asked) != 1 || asked[0].Kind != wire.ApprovalMCPCall || asked[0].Tool != "prompts/get" || asked[0].Server != "f" ||
			!strings.Contains(asked[0].Detail, "errors") || asked[0].TaskID == "" {
			t.Errorf("want one mcp_call card for prompts/get with the arguments, got %+v", asked)
		}
		reqs := f.model.Requests()
		if len(reqs) != 1 || reqs[0].LastUserText() != "Review the change in this workspace. Focus on errors." {
			t.Errorf("the model's user turn is not the prompt's message: %d requests, %q", len(reqs), reqs[0].LastUserText())
		}
		if got := promptsGot(t, log); got != "review map[focus:errors]\n" {
			t.Errorf("the server was asked %q", got)
		}
	})
	t.Run("ask, rejected", func(t *testing.T) {
		f, log := promptFixture(t)
		res := f.run(t, RunRequest{MCPPrompt: &PromptRef{Server: "f", Name: "review"}}, TaskIO{Approver: &answer{opt: string(wire.OptionRejectOnce)}})
		if res.StopReason != wire.StopError || !strings.Contains(res.Error, "denied by the user") {
			t.Errorf("result %+v, want an error saying the user denied it", res)
		}
		if got := promptsGot(t, log); got != "" || len(f.model.Requests()) != 0 {
			t.Errorf("a rejected prompt reached the server (%q) or the model (%d requests)", got, len(f.model.Requests()))
		}
	})
	t.Run("deny rule", func(t *testing.T) {
		f, log := promptFixture(t, allowRule("f__prompts:get", "deny"))
		ans := &answer{opt: string(wire.OptionAllowOnce)}
		res := f.run(t, RunRequest{MCPPrompt: &PromptRef{Server: "f", Name: "review"}}, TaskIO{Approver: ans})
		if res.StopReason != wire.StopError || !strings.Contains(res.Error, "denied by policy") {
			t.Errorf("result %+v, want an error saying the policy denied it", res)
		}
		if got := promptsGot(t, log); got != "" || len(ans.asked()) != 0 || len(f.model.Requests()) != 0 {
			t.Errorf("a denied prompt asked the server (%q), the user (%d cards) or the model (%d requests)", got, len(ans.asked()), len(f.model.Requests()))
		}
	})
	t.Run("server glob allows", func(t *testing.T) {
		f, log := promptFixture(t, allowRule("f__*", "allow"))
		f.model.Script(modeltest.Turn{Text: "hello said"})
		ans := &answer{opt: string(wire.OptionRejectOnce)}
		res := f.run(t, RunRequest{MCPPrompt: &PromptRef{Server: "f", Name: "greet", Arguments: map[string]string{"name": "Ada"}}}, TaskIO{Approver: ans})
		if res.StopReason != wire.StopEndTurn || len(ans.asked()) != 0 || promptsGot(t, log) != "greet map[name:Ada]\n" {
			t.Errorf("f__* = allow covers its prompts: %+v, %d cards", res, len(ans.asked()))
		}
	})
	t.Run("arguments checked first", func(t *testing.T) {
		f, log := promptFixture(t, allowRule("f__*", "allow"))
		for _, c := range []struct {
			ref  PromptRef
			want string
		}{
			{PromptRef{Server: "f", Name: "greet"}, "needs name: give name=..."},
			{PromptRef{Server: "f", Name: "review", Arguments: map[string]string{"topic": "x"}}, "takes no argument topic: it takes focus"},
			{PromptRef{Server: "f", Name: "nope"}, "has no prompt nope: it offers"},
			{PromptRef{Server: "g", Name: "review"}, "no connected MCP server g offers prompts"},
		} {
			if err := f.core.CheckPrompt(c.ref); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("CheckPrompt(%+v) = %v, want %q", c.ref, err, c.want)
			}
			res := f.run(t, RunRequest{MCPPrompt: &c.ref}, TaskIO{})
			if res.StopReason != wire.StopError || !strings.Contains(res.Error, c.want) {
				t.Errorf("run %+v = %+v, want an error with %q", c.ref, res, c.want)
			}
		}
		if got := promptsGot(t, log); got != "" {
			t.Errorf("a prompt with bad arguments reached the server: %q", got)
		}
	})
	t.Run("names are escaped", func(t *testing.T) {
		f, _ := promptFixture(t, allowRule("f__*", "allow"))
		f.model.Script(modeltest.Turn{Text: "ok"})
		var hostile string
		for _, p := range f.core.Prompts() {
			if strings.HasPrefix(p.Name, "evil") {
				hostile = p.Name
			}
		}
		task := f.core.Start(RunRequest{MCPPrompt: &PromptRef{Server: "f", Name: hostile}}, TaskIO{Workspace: f.ws})
		if strings.ContainsAny(task.Title, "\x1b\u202e") || !strings.Contains(task.Title, `\x1b`) {
			t.Errorf("the task's title shows the server's bytes raw: %q", task.Title)
		}
		if res := wait(t, task); res.StopReason != wire.StopEndTurn {
			t.Errorf("result %+v", res)
		}
	})
}
