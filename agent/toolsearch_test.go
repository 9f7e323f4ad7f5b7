package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/mcp"
)

func TestSearchRanksByNameAndDescription(t *testing.T) {
	tools := []mcp.Tool{
		{Name: "github__create_issue", Server: "github", ServerTool: "create_issue", Description: "Create a new issue in a GitHub repository."},
		{Name: "github__list_issues", Server: "github", ServerTool: "list_issues", Description: "List issues of a repository."},
		{Name: "linear__createIssue", Server: "linear", ServerTool: "createIssue", Description: "Create a Linear issue."},
		{Name: "fs__read_text_file", Server: "fs", ServerTool: "read_text_file", Description: "Read a file as text."},
	}
	cases := []struct {
		query string
		want  string // the top result
	}{
		{"create github issue", "github__create_issue"},
		{"linear issue", "linear__createIssue"},
		{"read a text file", "fs__read_text_file"},
		{"list issues", "github__list_issues"},
	}
	for _, c := range cases {
		got := search(tools, c.query, 2)
		if len(got) == 0 || got[0].Name != c.want {
			t.Errorf("search(%q) = %v, want %s first", c.query, got, c.want)
		}
	}
	if got := search(tools, "kubernetes pods", 5); len(got) != 0 {
		t.Errorf("search for words no tool has = %v, want nothing", got)
	}
}

func TestOfferKeepsToTheLimitAndTheBudget(t *testing.T) {
	all := builtinDefs()
	var mcpDefs []model.ToolDef
	for i := 0; i < 200; i++ {
		mcpDefs = append(mcpDefs, model.ToolDef{Name: fmt.Sprintf("s__t%03d", i), Description: "A tool.", Schema: json.RawMessage(`{"type":"object"}`)})
	}
	all = append(all, mcpDefs...)
	cases := []struct {
		name      string
		offer     toolOffer
		loaded    []string
		searching bool
		max       int
	}{
		{"under both: everything, no search", toolOffer{maxTools: 0, budget: 1 << 30}, nil, false, len(all) - 1},
		{"past the count limit: built-ins, search, loaded", toolOffer{maxTools: 128, budget: 1 << 30}, []string{"s__t150", "s__t003"}, true, 128},
		{"past the token budget", toolOffer{maxTools: 0, budget: 100}, []string{"s__t150"}, true, 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defs, searching := c.offer.offer(all, c.loaded)
			names := make([]string, len(defs))
			for i, d := range defs {
				names[i] = d.Name
			}
			if searching != c.searching || len(defs) > c.max {
				t.Fatalf("searching %v with %d tools, want %v and at most %d", searching, len(defs), c.searching, c.max)
			}
			if slices.Contains(names, tools.SearchToolName) != c.searching {
				t.Errorf("search_tools offered = %v, want %v", !c.searching, c.searching)
			}
			for _, l := range c.loaded {
				if !slices.Contains(names, l) {
					t.Errorf("loaded tool %s not offered: %v", l, names)
				}
			}
			for _, b := range tools.BuiltinNames() {
				if b != tools.SearchToolName && !slices.Contains(names, b) {
					t.Errorf("built-in %s not offered", b)
				}
			}
		})
	}
}

func TestLoadedFromHistoryIsMostRecentFirst(t *testing.T) {
	h := []model.Message{
		{Role: "assistant", Content: []model.Block{{Type: "tool_use", ID: "1", Name: "a__x"}}},
		{Role: "user", Content: []model.Block{{Type: "tool_result", ToolUseID: "1", Content: "ok"}}},
		{Role: "assistant", Content: []model.Block{{Type: "tool_use", ID: "2", Name: tools.SearchToolName}}},
		{Role: "user", Content: []model.Block{{Type: "tool_result", ToolUseID: "2", Content: loadedPrefix + "b__y, c__z\n\n- b__y: ..."}}},
	}
	if got := loadedFromHistory(h); !slices.Equal(got, []string{"b__y", "c__z", "a__x"}) {
		t.Errorf("loaded = %v", got)
	}
}

// Two search_tools calls of one response run side by side (a search
// changes nothing the other calls see); each loads what it found for the
// next request, and under -race the two loads do not race on the run's
// list of loaded tools.
func TestParallelSearchesBothLoad(t *testing.T) {
	bin := testenv.GoBinary(t, "./internal/faultserver")
	f := newFixture(t, "openai", withServers(t, func(root string) []config.Server {
		var servers []config.Server
		for i := 1; i <= 4; i++ { // 152 tools: past the OpenAI wire's 128, so search is on
			servers = append(servers, config.Server{Name: fmt.Sprintf("f%d", i), Origin: config.User, Command: bin, Cwd: root,
				Args: []string{"-tools", "38", "-marker", root}})
		}
		return servers
	}))
	f.model.Script(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{
			{ID: "s1", Name: tools.SearchToolName, Input: `{"query":"numbered tool_030","limit":1}`},
			{ID: "s2", Name: tools.SearchToolName, Input: `{"query":"numbered tool_007","limit":1}`},
		}},
		modeltest.Turn{Text: "found both"})
	if res := f.run(t, RunRequest{Prompt: "find two tools"}, TaskIO{}); res.StopReason != "end_turn" {
		t.Fatalf("task ended %s: %s", res.StopReason, res.Error)
	}
	reqs := f.model.ModelRequests("openai")
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if first := reqs[0].ToolNames(); !slices.Contains(first, tools.SearchToolName) || len(first) > 128 {
		t.Fatalf("first request offers %d tools (search_tools %v), want search on", len(first), slices.Contains(first, tools.SearchToolName))
	}
	next := reqs[1].ToolNames()
	for _, want := range []string{"__tool_030", "__tool_007"} {
		if !slices.ContainsFunc(next, func(n string) bool { return strings.HasSuffix(n, want) }) {
			t.Errorf("the next request does not offer the tool found for %s: %v", want, next)
		}
	}
}
