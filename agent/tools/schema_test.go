package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/internal/testenv"
	"github.com/agentls/agentls/mcp"
)

// Every built-in's schema is derived from its argument struct: an object
// whose properties each have one plain type, the same bytes every time (the
// tools block of a request must stay byte-identical across turns for
// prompt caching). What an argument means is said once, in the tool's
// description, which names every argument but path (relative paths are
// explained in the system prompt); unknown fields are refused when a call
// is decoded (TestBadArgumentsNameTheFieldAndWhatTheSchemaExpects).
func TestBuiltinSchemasArePlainObjectsAndStable(t *testing.T) {
	for _, b := range Builtins() {
		var s struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		d := b.Def()
		if err := json.Unmarshal(d.Schema, &s); err != nil || s.Type != "object" {
			t.Errorf("%s: schema %s, want an object (%v)", d.Name, d.Schema, err)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: required %q is no property: %s", d.Name, r, d.Schema)
			}
		}
		for name, p := range s.Properties {
			var prop struct{ Type string }
			if json.Unmarshal(p, &prop) != nil || prop.Type == "" {
				t.Errorf("%s: property %s = %s, want one plain type", d.Name, name, p)
			}
			if name != "path" && !strings.Contains(d.Description, name) {
				t.Errorf("%s: description %q does not say what %s is", d.Name, d.Description, name)
			}
		}
	}
	if a, b := argsSchema[writeFileArgs](), argsSchema[writeFileArgs](); !bytes.Equal(a, b) {
		t.Errorf("argsSchema differs between two calls:\n%s\n%s", a, b)
	}
}

// The built-ins offered on every request (all but search_tools, which is
// offered only when there are too many tools to offer) cost their bytes on
// every request of every task: 4,401 bytes of names, descriptions and
// schemas (5,060 on the OpenAI wire) before they were cut to what the model
// needs (2,331). This holds them to that.
func TestBuiltinDefinitionsFitTheirBudget(t *testing.T) {
	const budget = 2400 // bytes of name, description and schema, all together
	n := 0
	for _, b := range Builtins() {
		if d := b.Def(); d.Name != SearchToolName {
			n += len(d.Name) + len(d.Description) + len(d.Schema)
		}
	}
	if n > budget {
		t.Errorf("the built-ins offered on every request take %d bytes, over the budget of %d: say what the model needs once, in the description", n, budget)
	}
}

func TestBadArgumentsNameTheFieldAndWhatTheSchemaExpects(t *testing.T) {
	tt := newToolTest(t)
	for _, tc := range []struct {
		tool, args string
		want       []string
	}{
		{"read_file", `{"path":"a.txt","bogus":1}`, []string{`read_file: bad arguments`, `unknown field "bogus"`,
			`read_file expects a JSON object with required fields: "path"; optional: "end_line", "start_line"`}},
		{"run_command", `{"command":7}`, []string{`run_command: bad arguments`, `required fields: "command"; optional: "cwd", "shell", "timeout_seconds"`}},
		{"list_directory", `{"dir":"."}`, []string{`unknown field "dir"`, `list_directory expects a JSON object with no required fields; optional: "path"`}},
	} {
		out, isErr, status := tt.call(tc.tool, tc.args)
		if !isErr || status != "failed" {
			t.Errorf("%s %s = %q %s, want it failed", tc.tool, tc.args, out, status)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s %s = %q, want it to say %q", tc.tool, tc.args, out, w)
			}
		}
	}
	if len(tt.asks) != 0 {
		t.Errorf("bad arguments asked %d times, want never", len(tt.asks))
	}
}

// Every built-in and every tool of the real server-everything and
// server-filesystem, as the agent offers them, reaches the fake model
// playing each provider through the real provider client, and the fake
// takes them: Gemini (through its OpenAI-compatible endpoint), OpenAI
// and Anthropic each refuse a request with a tool their rules refuse.
func TestEveryToolPassesEveryProvider(t *testing.T) {
	dir := t.TempDir()
	reg := mcp.NewRegistry([]config.Server{
		{Name: "everything", Origin: config.User, Command: testenv.NodeBin(t, "mcp-server-everything"), Args: []string{"stdio"}, Cwd: dir},
		{Name: "fs", Origin: config.User, Command: testenv.NodeBin(t, "mcp-server-filesystem"), Args: []string{dir}, Cwd: dir},
	}, mcp.Options{Reserved: BuiltinNames(), Logf: t.Logf})
	rctx, stop := context.WithCancel(context.Background())
	reg.Start(rctx)
	t.Cleanup(func() {
		reg.Close()
		stop()
		testenv.WaitNoProcesses(t, dir, 10*time.Second)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	reg.Wait(ctx)
	var defs []model.ToolDef
	for _, b := range Builtins() {
		defs = append(defs, b.Def())
	}
	builtins := len(defs)
	servers := map[string]int{}
	for _, mt := range reg.Tools() {
		defs = append(defs, FromMCP(mt, 1024).Def())
		servers[mt.Server]++
	}
	if servers["everything"] == 0 || servers["fs"] == 0 {
		t.Fatalf("tools listed per server: %v; want both servers' tools", servers)
	}
	for _, c := range []struct {
		provider, model string
		vendor          modeltest.ToolDialect
	}{
		{"anthropic", "claude-sonnet-4-5", modeltest.AnthropicTools},
		{"openai", "gpt-4.1", modeltest.OpenAITools},
		{"openai", "gemini-2.5-flash", modeltest.GeminiTools},
	} {
		t.Run(string(c.vendor), func(t *testing.T) {
			fake := modeltest.New(t)
			fake.Script(modeltest.Turn{Text: "ok"})
			base := fake.URL()
			if c.provider == "openai" {
				base += "/v1"
			}
			p, err := model.Open(model.Resolved{Provider: c.provider, Name: c.model, BaseURL: base, MaxTokens: 100}, "k", nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Stream(ctx, model.Request{Messages: []model.Message{{Role: "user", Content: []model.Block{{Type: "text", Text: "hi"}}}}, Tools: defs}, func(string) {})
			if err != nil {
				t.Fatalf("%d built-ins and %v MCP tools: %v", builtins, servers, err)
			}
			reqs := fake.ModelRequests("")
			if len(reqs) != 1 || len(reqs[0].ToolNames()) != len(defs) || modeltest.ToolDialectFor(reqs[0].Format, reqs[0].Model()) != c.vendor {
				t.Fatalf("the fake saw %d requests, want one offering %d tools as %s", len(reqs), len(defs), c.vendor)
			}
		})
	}
	// The servers' schemas as they wrote them: Gemini refuses each one (so
	// the run above tested a translation). The built-ins it takes as they
	// are: they need no translation on any provider.
	for i, d := range defs {
		body, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": d.Name, "description": d.Description, "parameters": d.Schema}}}})
		problems := modeltest.ToolProblems(modeltest.GeminiTools, body)
		if i >= builtins && len(problems) == 0 {
			t.Errorf("Gemini takes %s as it is (%s): it needs no translation", d.Name, d.Schema)
		}
		if i < builtins && len(problems) > 0 {
			t.Errorf("Gemini refuses the built-in %s as it is (%s): %v", d.Name, d.Schema, problems)
		}
	}
}
