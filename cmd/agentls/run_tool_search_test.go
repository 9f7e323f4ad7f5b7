package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/internal/testenv"
)

// toolsBytes is the size of a request's tools array.
func toolsBytes(r modeltest.Request) int {
	var v struct {
		Tools json.RawMessage `json:"tools"`
	}
	json.Unmarshal(r.Body, &v)
	return len(v.Tools)
}

// With 4 servers of 50 tools each on the OpenAI wire (which refuses more
// than 128 tools), no request carries more than 128, the model reaches a tool
// that was not loaded by searching first, and the definitions sent per turn
// are under a quarter of sending all 200.
func TestToolSearchPastTheToolLimit(t *testing.T) {
	fault := testenv.GoBinary(t, "./internal/faultserver")
	servers := ""
	for i := 1; i <= 4; i++ {
		servers += fmt.Sprintf("[mcp.servers.f%d]\ncommand = %q\nargs = [\"-tools\", \"38\"]\n\n", i, fault)
	}
	policy := "[mcp.policy]\n\"f2__*\" = \"allow\"\n"
	script := []modeltest.Turn{
		{ToolCalls: []modeltest.ToolCall{{Name: "f2__tool_030", Input: `{}`}}},
		{ToolCalls: []modeltest.ToolCall{{Name: "search_tools", Input: `{"query":"numbered tool 030","limit":2}`}}},
		{ToolCalls: []modeltest.ToolCall{{Name: "f2__tool_030", Input: `{}`}}},
		{Text: "tool_030 answered."},
	}

	// Baseline, same run: every tool offered (no limit, no budget).
	base := newLongEnv(t, "openai", "max_tools = 1000\ncontext_window = 200000\n")
	appendConfig(t, base.config, "[mcp]\ntool_budget_tokens = 100000000\n\n"+servers+policy)
	base.model.Script(modeltest.Turn{Text: "ok"})
	if code, out, errOut := base.run(t, "hello"); code != 0 {
		t.Fatalf("baseline: exit %d\n%s\n%s", code, out, errOut)
	}
	breq := base.model.ModelRequests("openai")[0]
	if n := len(breq.ToolNames()); n < 200 {
		t.Fatalf("baseline offered %d tools, want every one of the 200 MCP tools and the built-ins", n)
	}
	allBytes := toolsBytes(breq)

	e := newLongEnv(t, "openai", "")
	appendConfig(t, e.config, servers+policy)
	e.model.SetLimits(modeltest.Limits{MaxTools: 128})
	e.model.Script(script...)
	code, out, errOut := e.run(t, "call tool 30 of f2")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	reqs := e.model.ModelRequests("openai")
	if len(reqs) != 4 || e.model.Billing().Requests != 4 {
		t.Fatalf("%d requests, %d answered: want 4, none refused", len(reqs), e.model.Billing().Requests)
	}
	sum := 0
	for i, r := range reqs {
		names := r.ToolNames()
		if len(names) > 128 {
			t.Errorf("request %d offers %d tools", i+1, len(names))
		}
		if !slices.Contains(names, "search_tools") {
			t.Errorf("request %d does not offer search_tools", i+1)
		}
		sum += toolsBytes(r)
	}
	if slices.Contains(reqs[0].ToolNames(), "f2__tool_030") {
		t.Errorf("f2__tool_030 was offered before any search")
	}
	if !slices.Contains(reqs[2].ToolNames(), "f2__tool_030") {
		t.Errorf("f2__tool_030 not offered after search_tools found it: %v", reqs[2].ToolNames())
	}
	res := reqs[1].ToolResults()
	if len(res) != 1 || !strings.Contains(res[0].Content, "search_tools") {
		t.Errorf("calling a tool not loaded: %+v, want an error telling the model to search", res)
	}
	res = reqs[2].ToolResults()
	if !strings.Contains(res[len(res)-1].Content, "f2__tool_030") {
		t.Errorf("search result %q does not load f2__tool_030", res[len(res)-1].Content)
	}
	res = reqs[3].ToolResults()
	if last := res[len(res)-1]; last.IsError || !strings.Contains(last.Content, "tool_030") {
		t.Errorf("the found tool's call: %+v, want its answer", last)
	}
	ratio := float64(sum) / float64(len(reqs)) / float64(allBytes)
	t.Logf("tool definitions per request: %d bytes with search vs %d with all tools (%.3fx)", sum/len(reqs), allBytes, ratio)
	if ratio >= 0.25 {
		t.Errorf("tool definitions per request %.2f of sending all, want < 0.25", ratio)
	}
}

func appendConfig(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n" + text); err != nil {
		t.Fatal(err)
	}
}

// The first try: a local server, a model name agentls does not
// know, no window configured. The window is a guess (8192), which leaves
// the MCP tools a budget of 1638 tokens: they are found by tool search, and
// the user is told so once, with what to set, not only the model.
func TestAGuessedWindowHidingToolsSaysSoOnce(t *testing.T) {
	fault := testenv.GoBinary(t, "./internal/faultserver")
	e := newLongEnv(t, "openai", "")
	appendConfig(t, e.config, fmt.Sprintf("[mcp]\nstartup_wait = \"60s\"\n\n[mcp.servers.f1]\ncommand = %q\nargs = [\"-tools\", \"60\"]\n\n", fault))
	e.model.Script(modeltest.Turn{ToolCalls: []modeltest.ToolCall{{Name: "search_tools", Input: `{"query":"numbered tool 030"}`}}}, modeltest.Turn{Text: "found it"})
	code, out, errOut := e.run(t, "find tool 30")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"the model's context window: 8192 tokens (a guess: agentls does not know the model \"fake-model\"",
		"MCP tools are not in the request: their definitions (about ",
		"tokens) pass the budget of 1638 tokens (of the model's 8192-token window, guessed), so the model finds them by tool search; set [model] context_window",
	} {
		if n := strings.Count(errOut, want); n != 1 {
			t.Errorf("stderr says %q %d times; want once:\n%s", want, n, errOut)
		}
	}
	if e.model.WindowQuestions() == 0 {
		t.Error("the server was not asked for its window before guessing")
	}
}
