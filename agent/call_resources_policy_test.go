package agent

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
)

// TestResourceReadsFollowTheServerPolicy is red-team finding 7: under
// "vault__*" = "deny", read_mcp_resource returned the resource. Reading and
// listing a server's resources are decided like calls of its tools (as the
// names vault__resources:read and vault__resources:list): deny refuses
// without asking (a denied server is not listed), no rule asks with a card,
// allow goes ahead.
// The server is the real faultserver; its fault://text reads "hello resource".
func TestResourceReadsFollowTheServerPolicy(t *testing.T) {
	bin := testenv.GoBinary(t, "./internal/faultserver")
	vault := func(rules ...config.PolicyRule) func(*Options) {
		return withServers(t, func(root string) []config.Server {
			return []config.Server{{Name: "vault", Origin: config.User, Command: bin, Cwd: root, Args: []string{"-marker", root}}}
		}, rules...)
	}
	script := []modeltest.Turn{
		{ToolCalls: []modeltest.ToolCall{{ID: "read", Name: "read_mcp_resource", Input: `{"server":"vault","uri":"fault://text"}`}}},
		{ToolCalls: []modeltest.ToolCall{{ID: "list", Name: "list_mcp_resources", Input: `{}`}}},
		{Text: "done"},
	}
	for _, tc := range []struct {
		name     string
		rules    []config.PolicyRule
		answer   string
		cards    int
		readWant string // in the read's result
		listed   bool
	}{
		{"deny refuses without a card", []config.PolicyRule{allowRule("vault__*", "deny")}, "allow_once", 0, "denied by policy", false},
		{"no rule asks; denied cards refuse", nil, "reject_once", 2, "denied by the user", false},
		{"no rule asks; allowed cards read and list", nil, "allow_once", 2, "hello resource", true},
		{"allow reads without a card", []config.PolicyRule{allowRule("vault__*", "allow")}, "reject_once", 0, "hello resource", true},
		{"an allow of a tool does not allow resources", []config.PolicyRule{allowRule("vault__echo", "allow")}, "reject_once", 2, "denied by the user", false},
		{"reads and listing have their own names", []config.PolicyRule{allowRule("vault__resources:list", "allow"), allowRule("vault__resources:read", "deny")}, "allow_once", 0, "denied by policy", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "anthropic", vault(tc.rules...))
			f.model.Script(script...)
			asker := &answer{opt: tc.answer}
			if res := f.run(t, RunRequest{Prompt: "read the vault"}, TaskIO{Approver: asker}); res.StopReason != "end_turn" {
				t.Fatalf("result = %+v", res)
			}
			results := map[string]string{}
			for _, req := range f.model.Requests() {
				for _, r := range req.ToolResults() {
					results[r.ToolUseID] = r.Content
				}
			}
			read, list := results["read"], results["list"]
			if !strings.Contains(read, tc.readWant) || tc.readWant != "hello resource" && strings.Contains(read, "hello resource") {
				t.Errorf("read_mcp_resource = %q, want %q", read, tc.readWant)
			}
			if got := strings.Contains(list, "fault://text"); got != tc.listed {
				t.Errorf("list_mcp_resources = %q; listed the denied server's resources: %v, want %v", list, got, tc.listed)
			}
			asked := asker.asked()
			if len(asked) != tc.cards {
				t.Fatalf("%d cards, want %d: %+v", len(asked), tc.cards, asked)
			}
			for i, a := range asked {
				want := []string{"resources/read", "fault://text"}
				if i == 1 {
					want = []string{"resources/list", "vault"}
				}
				if a.Kind != "mcp_call" || a.Server != "vault" || a.Tool != want[0] || !strings.Contains(a.Title+a.Detail, want[1]) {
					t.Errorf("card %d = %+v, want an mcp_call card of vault for %s naming %s", i, a, want[0], want[1])
				}
				for _, o := range a.Options {
					if o.Kind == "allow_always" {
						t.Errorf("a resource card offers %q: there is no definition to bind it to", o.Name)
					}
				}
			}
		})
	}
}
