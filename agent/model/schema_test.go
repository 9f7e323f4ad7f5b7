package model

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentls/agentls/agent/model/modeltest"
	"github.com/agentls/agentls/config"
)

// The rules are the descriptor's: recognised by [model] provider, the
// endpoint's host, or a Gemini model's name wherever it is served.
func TestToolRulesAreChosenByProviderHostOrModel(t *testing.T) {
	cases := []struct {
		provider, url, model, want string
	}{
		{"anthropic", "", "claude-sonnet-4-5", "anthropic"},
		{"openai", "", "gpt-4.1", "openai"},
		{"", "http://127.0.0.1:11434/v1", "qwen2.5-coder", "openai"},
		{"gemini", "", "", "gemini"},
		{"", "https://generativelanguage.googleapis.com/v1beta/openai", "gemma-3-27b-it", "gemini"},
		{"openai", "https://generativelanguage.googleapis.com/v1beta/openai", "gemini-2.5-pro", "gemini"},
		{"openrouter", "", "google/gemini-2.5-pro", "gemini"},
		{"", "http://127.0.0.1:4000/v1", "Gemini-2.0-Flash", "gemini"},
		{"openrouter", "", "deepseek/deepseek-chat", "openai"},
		{"deepseek", "", "", "openai"},
	}
	for _, c := range cases {
		r, err := Resolve(config.Model{Provider: c.provider, BaseURL: c.url, Name: c.model}, func(string) string { return "k" })
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		p, err := Open(r, "k", nil)
		if err != nil {
			t.Fatal(err)
		}
		var got ToolRules
		switch p := p.(type) {
		case *anthropic:
			got = AnthropicToolRules
		case *openai:
			got = p.toolRules("")
		default:
			t.Fatalf("%T", p)
		}
		if got.Family != c.want {
			t.Errorf("provider %q at %q with %q: %s rules, want %s", c.provider, c.url, c.model, got.Family, c.want)
		}
	}
}

// The rules of OpenAI and Anthropic, and what every family does to the
// root: a schema that already complies goes out byte for byte.
func TestToolSchemaTranslationOpenAIAndAnthropic(t *testing.T) {
	cases := []struct {
		name  string
		rules ToolRules
		in    string
		want  string // "" : the input's bytes, unchanged
		notes []string
	}{
		{"a compliant schema is sent as the server wrote it", OpenAIToolRules,
			`{ "type": "object", "properties": {"a": {"type": "string", "format": "uuid"}}, "$defs": {}, "additionalProperties": false }`, "", nil},
		{"Anthropic takes $ref, const and type lists as they are", AnthropicToolRules,
			`{"type":"object","$defs":{"X":{"const":1}},"properties":{"x":{"$ref":"#/$defs/X"},"y":{"type":["string","null"]}}}`, "", nil},
		{"no schema is an object without properties (OpenAI)", OpenAIToolRules, ``, `{"type":"object","properties":{}}`, nil},
		{"null is an object without properties (OpenAI)", OpenAIToolRules, `null`, `{"type":"object","properties":{}}`, nil},
		{"no schema is an object (Anthropic)", AnthropicToolRules, ``, `{"type":"object"}`, nil},
		{"an object without properties gets them (OpenAI)", OpenAIToolRules, `{"type":"object"}`, `{"type":"object","properties":{}}`, nil},
		{"an object without properties is taken (Anthropic)", AnthropicToolRules, `{"type":"object"}`, "", nil},
		{"a root without a type is an object", AnthropicToolRules, `{"properties":{"a":{"type":"string"}}}`, `{"properties":{"a":{"type":"string"}},"type":"object"}`, nil},
		{"an array without items gets items of any value (OpenAI)", OpenAIToolRules,
			`{"type":"object","properties":{"l":{"type":"array"},"m":{"type":"object","properties":{"n":{"type":["array","null"]}}}}}`,
			`{"type":"object","properties":{"l":{"type":"array","items":{}},"m":{"type":"object","properties":{"n":{"type":["array","null"],"items":{}}}}}}`, nil},
		{"a root anyOf of objects is one object, the description says which properties go together", OpenAIToolRules,
			`{"anyOf":[{"type":"object","properties":{"id":{"type":"string"},"x":{"type":"number"}},"required":["id","x"]},{"type":"object","properties":{"id":{"type":"string"},"name":{"type":"string"}},"required":["id","name"]}]}`,
			`{"properties":{"id":{"type":"string"},"x":{"type":"number"},"name":{"type":"string"}},"required":["id"],"type":"object"}`,
			[]string{"the arguments take any of these shapes: {id, x} or {id, name}"}},
		{"a root oneOf through $ref is one object (Anthropic)", AnthropicToolRules,
			`{"$defs":{"A":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}},"oneOf":[{"$ref":"#/$defs/A"},{"type":"object","properties":{"b":{"type":"integer"}}}]}`,
			`{"$defs":{"A":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}},"properties":{"a":{"type":"string"},"b":{"type":"integer"}},"type":"object"}`,
			[]string{"the arguments take exactly one of these shapes: {a} or {b}"}},
		{"a root allOf is merged", OpenAIToolRules,
			`{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"string"}},"required":["b"]}]}`,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"]}`, nil},
		{"a root $ref is its target, $defs kept for the references below", OpenAIToolRules,
			`{"$ref":"#/$defs/Args","$defs":{"Args":{"type":"object","properties":{"p":{"$ref":"#/$defs/P"}}},"P":{"type":"string"}}}`,
			`{"type":"object","properties":{"p":{"$ref":"#/$defs/P"}},"$defs":{"Args":{"type":"object","properties":{"p":{"$ref":"#/$defs/P"}}},"P":{"type":"string"}}}`, nil},
		{"a root that is no object is offered without arguments", OpenAIToolRules,
			`{"type":"string"}`, `{"type":"object","properties":{}}`,
			[]string{"its server's input schema is not an object (a string), so no arguments are described"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := ToolDef{Name: "s__t", Description: "Tool.", Schema: json.RawMessage(c.in)}
			got := c.rules.Translate(in)
			if c.want == "" {
				if string(got.Schema) != c.in {
					t.Errorf("schema\n %s\nwant it unchanged:\n %s", got.Schema, c.in)
				}
			} else if !sameJSON(t, got.Schema, []byte(c.want)) {
				t.Errorf("translated\n %s\nto\n %s\nwant\n %s", c.in, got.Schema, c.want)
			}
			for _, n := range c.notes {
				if !strings.Contains(got.Description, n) {
					t.Errorf("description %q does not say %q", got.Description, n)
				}
			}
			if len(c.notes) == 0 && got.Description != in.Description {
				t.Errorf("description %q, want it unchanged", got.Description)
			}
			vendor := map[string]modeltest.ToolDialect{"openai": modeltest.OpenAITools, "anthropic": modeltest.AnthropicTools}[c.rules.Family]
			if p := modeltest.ToolProblems(vendor, requestBody(c.rules, got)); len(p) > 0 {
				t.Errorf("%s refuses the translation %s:\n%s", vendor, got.Schema, strings.Join(p, "\n"))
			}
		})
	}
}

// requestBody is a request offering defs (already translated) in the
// shape of rules' wire.
func requestBody(rules ToolRules, defs ...ToolDef) []byte {
	var body []byte
	if rules.Family == "anthropic" {
		body, _ = json.Marshal(map[string]any{"model": "claude-sonnet-4-5", "tools": anthropicTools(defs)})
	} else {
		model := "gpt-4.1"
		if rules.Family == "gemini" {
			model = "gemini-2.5-flash"
		}
		body, _ = json.Marshal(map[string]any{"model": model, "tools": openaiTools(defs)})
	}
	return body
}

// OpenAI refuses a description over 1,024 characters: the cut is made on
// the whole description, the "[server]" prefix agentls adds
// included, and what the translation says about the schema is kept.
func TestToolDescriptionFitsTheProvidersLimit(t *testing.T) {
	prefix := `[firecrawl] `
	server := strings.Repeat("é", 1024) // what description_max_chars lets through
	d := ToolDef{Name: "firecrawl__firecrawl_scrape", Description: prefix + server, Schema: json.RawMessage(`{"type":"object","properties":{}}`)}
	got := OpenAIToolRules.Translate(d)
	if n := utf8.RuneCountInString(got.Description); n != 1024 {
		t.Errorf("description of %d characters, want 1024", n)
	}
	if !strings.HasPrefix(got.Description, prefix) || !strings.HasSuffix(got.Description, "é…") {
		t.Errorf("description %.80q…%q: want the prefix kept and the cut marked", got.Description, got.Description[len(got.Description)-8:])
	}
	if p := modeltest.ToolProblems(modeltest.OpenAITools, requestBody(OpenAIToolRules, got)); len(p) > 0 {
		t.Error(p)
	}
	if p := modeltest.ToolProblems(modeltest.OpenAITools, requestBody(OpenAIToolRules, d)); len(p) == 0 {
		t.Error("the fake takes a 1,036-character description: the test tests nothing")
	}

	d.Schema = json.RawMessage(`{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"string"}}}]}`)
	got = OpenAIToolRules.Translate(d)
	if n := utf8.RuneCountInString(got.Description); n > 1024 || !strings.HasSuffix(got.Description, "shapes: {a} or {b})") {
		t.Errorf("description of %d characters ending %q: want at most 1024, the note kept", n, got.Description[len(got.Description)-40:])
	}
	if got := AnthropicToolRules.Translate(ToolDef{Description: prefix + server}); got.Description != prefix+server {
		t.Error("Anthropic's description was cut: it has no such limit")
	}
}

// mcpFixture is one real MCP server's tools/list, as agentls's MCP client
// reads it (testdata/mcp-tools, captured from the npm packages each file
// names, at the version it names).
type mcpFixture struct {
	Package, Version string
	Tools            []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
}

func readMCPFixtures(t *testing.T) map[string]mcpFixture {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "mcp-tools", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in testdata/mcp-tools: %v", err)
	}
	out := map[string]mcpFixture{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fx mcpFixture
		if err := json.Unmarshal(raw, &fx); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = fx
	}
	return out
}

// mcpDef is a server's tool as agent/tools.FromMCP offers it: the
// description cut to description_max_chars (1024 by default), after the
// prefix naming the server.
func mcpDef(server, tool, desc string, schema json.RawMessage) ToolDef {
	return ToolDef{
		Name:        strings.ReplaceAll(server, "-", "_") + "__" + tool,
		Description: fmt.Sprintf("[%s] %s", server, capChars(desc, 1025)),
		Schema:      schema,
	}
}

// Every tool of 14 real MCP servers (221 tools, testdata/mcp-tools) goes
// through each provider's request as the fake model, playing that
// provider, takes it; before the translation, Gemini refused most of them
// and OpenAI every description the prefix pushed over its limit. Each
// server's tools are one request, as they would be.
func TestRealMCPServersToolsPassEveryProvider(t *testing.T) {
	fixtures := readMCPFixtures(t)
	providers := []struct {
		vendor modeltest.ToolDialect
		p      Provider
	}{
		{modeltest.AnthropicTools, newAnthropic(DefaultAnthropicURL, "claude-sonnet-4-5", "k", "ANTHROPIC_API_KEY", 8192, nil)},
		{modeltest.OpenAITools, newOpenAI(DefaultOpenAIURL, "gpt-4.1", "k", "OPENAI_API_KEY", 8192, nil)},
		{modeltest.GeminiTools, newOpenAI("https://generativelanguage.googleapis.com/v1beta/openai", "gemini-2.5-flash", "k", "GEMINI_API_KEY", 8192, nil)},
	}
	for _, pv := range providers {
		t.Run(string(pv.vendor), func(t *testing.T) {
			tools, before := 0, 0
			for server, fx := range fixtures {
				var defs []ToolDef
				for _, tool := range fx.Tools {
					def := mcpDef(server, tool.Name, tool.Description, tool.InputSchema)
					defs = append(defs, def)
					tools++
					// As it went out before: the schema verbatim.
					if len(modeltest.ToolProblems(pv.vendor, requestBody(ToolRules{Family: string(pv.vendor)}, def))) > 0 {
						before++
					}
				}
				body, err := bodyOf(pv.p)(Request{Messages: []Message{{Role: "user", Content: []Block{{Type: "text", Text: "hi"}}}}, Tools: defs})
				if err != nil {
					t.Fatal(err)
				}
				if p := modeltest.ToolProblems(pv.vendor, body); len(p) > 0 {
					t.Errorf("%s refuses the tools of %s %s:\n%s", pv.vendor, fx.Package, fx.Version, strings.Join(p, "\n"))
				}
			}
			t.Logf("%s: %d of %d tools refused as the servers wrote them, none after translation", pv.vendor, before, tools)
			if pv.vendor != modeltest.AnthropicTools && before == 0 {
				t.Errorf("%s refused none of the servers' own tools: the fake checks nothing", pv.vendor)
			}
		})
	}
}

// What the Gemini translation keeps: every property the server declares at
// the top is declared still, or named in the tool's description; a
// required one stays required; enums keep their values.
func TestGeminiTranslationKeepsTheArguments(t *testing.T) {
	for server, fx := range readMCPFixtures(t) {
		for _, tool := range fx.Tools {
			def := mcpDef(server, tool.Name, tool.Description, tool.InputSchema)
			got := GeminiToolRules.Translate(def)
			var orig, tr struct {
				Ref        string                     `json:"$ref"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			json.Unmarshal(def.Schema, &orig)
			json.Unmarshal(got.Schema, &tr)
			if orig.Ref != "" {
				continue // the root is elsewhere: TestGeminiSchemaTranslation covers it
			}
			for name, p := range orig.Properties {
				tp, ok := tr.Properties[name]
				if !ok {
					if !strings.Contains(got.Description, fmt.Sprintf("%q", name)) {
						t.Errorf("%s %s: property %q is neither declared nor named", server, tool.Name, name)
					}
					continue
				}
				var oe, te struct {
					Enum []any `json:"enum"`
				}
				json.Unmarshal(p, &oe)
				json.Unmarshal(tp, &te)
				if len(oe.Enum) > 0 && len(te.Enum) > 0 && len(te.Enum) != len(oe.Enum) {
					t.Errorf("%s %s: %q has enum %v, was %v", server, tool.Name, name, te.Enum, oe.Enum)
				}
			}
			for _, r := range orig.Required {
				if _, declared := tr.Properties[r]; declared && !containsStr(tr.Required, r) {
					t.Errorf("%s %s: %q is no longer required", server, tool.Name, r)
				}
			}
		}
	}
}
