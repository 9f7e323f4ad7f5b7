package modeltest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/providers"
)

func openaiBody(model, name, desc, params string) []byte {
	fn := map[string]any{"name": name, "description": desc}
	if params != "" {
		fn["parameters"] = json.RawMessage(params)
	}
	b, _ := json.Marshal(map[string]any{"model": model, "stream": true, "messages": []any{}, "tools": []any{map[string]any{"type": "function", "function": fn}}})
	return b
}

func TestToolDialectFor(t *testing.T) {
	for _, c := range []struct {
		wire  providers.Wire
		model string
		want  ToolDialect
	}{
		{providers.Messages, "claude-sonnet-4-5", AnthropicTools},
		{providers.ChatCompletions, "gpt-4.1", OpenAITools},
		{providers.ChatCompletions, "gemini-2.5-flash", GeminiTools},
		{providers.ChatCompletions, "google/gemini-2.5-pro", GeminiTools},
		{providers.ChatCompletions, "models/gemini-3-pro-preview", GeminiTools},
		{providers.ChatCompletions, "deepseek-chat", OpenAITools},
	} {
		if got := ToolDialectFor(c.wire, c.model); got != c.want {
			t.Errorf("ToolDialectFor(%q, %q) = %q, want %q", c.wire, c.model, got, c.want)
		}
	}
}

// Each rule refuses what the provider refuses, in its words; the schemas
// each provider documents as valid pass. This direction is load-bearing:
// a rule that refuses nothing would let the translation's tests pass on
// schemas the provider refuses.
func TestToolRulesRefuseWhatTheProviderRefuses(t *testing.T) {
	cases := []struct {
		name   string
		vendor ToolDialect
		params string
		want   string
	}{
		{"gemini: an unknown keyword", GeminiTools, `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
			`Invalid JSON payload received. Unknown name "additionalProperties" at 'tools[0].function_declarations[0].parameters': Cannot find field.`},
		{"gemini: $schema", GeminiTools, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"}}}`,
			`Unknown name "$schema"`},
		{"gemini: a type list", GeminiTools, `{"type":"object","properties":{"a":{"type":["string","null"]}}}`,
			`Proto field is not repeating, cannot start list.`},
		{"gemini: type null", GeminiTools, `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`,
			`(type.googleapis.com/google.ai.generativelanguage.v1beta.Type), "null"`},
		{"gemini: a string format", GeminiTools, `{"type":"object","properties":{"a":{"type":"string","format":"uuid"}}}`,
			`format: only 'enum' and 'date-time' are supported for STRING type`},
		{"gemini: empty properties", GeminiTools, `{"type":"object","properties":{}}`,
			`parameters.properties: should be non-empty for OBJECT type`},
		{"gemini: properties on a non-object", GeminiTools, `{"type":"object","properties":{"a":{"properties":{"b":{"type":"string"}}}}}`,
			`properties[a].properties: only allowed for OBJECT type`},
		{"gemini: an enum on a number", GeminiTools, `{"type":"object","properties":{"a":{"type":"integer","enum":[1,2]}}}`,
			`enum: only allowed for STRING type`},
		{"gemini: const", GeminiTools, `{"type":"object","properties":{"a":{"type":"string","const":"x"}}}`, `Unknown name "const"`},
		{"gemini: $ref", GeminiTools, `{"type":"object","$defs":{"X":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/X"}}}`, `Unknown name "$ref"`},
		{"gemini: oneOf", GeminiTools, `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, `Unknown name "oneOf"`},
		{"gemini: exclusiveMinimum", GeminiTools, `{"type":"object","properties":{"a":{"type":"integer","exclusiveMinimum":0}}}`, `Unknown name "exclusiveMinimum"`},
		{"gemini: propertyNames", GeminiTools, `{"type":"object","properties":{"a":{"type":"object","propertyNames":{"pattern":"x"}}}}`, `Unknown name "propertyNames"`},
		{"gemini: an array without items", GeminiTools, `{"type":"object","properties":{"a":{"type":"array"}}}`, `properties[a].items: missing field.`},
		{"gemini: required names an undeclared property", GeminiTools, `{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`,
			`parameters.required[0]: property is not defined`},
		{"openai: a description over 1,024 characters", OpenAITools, `{"type":"object","properties":{}}`,
			`Invalid 'tools[0].function.description': string too long. Expected a string with maximum length 1024, but got a string with length 1025 instead.`},
		{"openai: an object without properties", OpenAITools, `{"type":"object"}`,
			`Invalid schema for function 'f': In context=(), object schema missing properties.`},
		{"openai: an array without items", OpenAITools, `{"type":"object","properties":{"a":{"type":"array"}}}`,
			`Invalid schema for function 'f': In context=('properties', 'a'), array schema missing items.`},
		{"openai: a root that is no object", OpenAITools, `{"anyOf":[{"type":"object","properties":{}}]}`,
			`schema must be a JSON Schema of 'type: "object"', got 'type: "None"'.`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			model, desc := "gpt-4.1", "Does f."
			if c.vendor == GeminiTools {
				model = "gemini-2.5-flash"
			}
			if strings.Contains(c.name, "description") {
				desc = strings.Repeat("d", 1025)
			}
			got := strings.Join(ToolProblems(c.vendor, openaiBody(model, "f", desc, c.params)), "\n")
			if !strings.Contains(got, c.want) {
				t.Errorf("problems:\n%s\nwant one saying %q", got, c.want)
			}
		})
	}
	anthropic := func(schema string) []byte {
		b, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": "f", "input_schema": json.RawMessage(schema)}}})
		return b
	}
	for schema, want := range map[string]string{
		`{"properties":{}}`: "tools.0.custom.input_schema.type: Field required",
		`{"type":"object","anyOf":[{"required":["a"]}]}`: "input_schema does not support oneOf, allOf, or anyOf at the top level",
	} {
		if got := strings.Join(ToolProblems(AnthropicTools, anthropic(schema)), "\n"); !strings.Contains(got, want) {
			t.Errorf("anthropic, %s: problems %q, want %q", schema, got, want)
		}
	}
}

func TestToolRulesTakeWhatTheProviderDocuments(t *testing.T) {
	for vendor, params := range map[ToolDialect][]string{
		GeminiTools: {
			`{"type":"object"}`,
			`{"type":"OBJECT","properties":{"a":{"type":"STRING","format":"date-time","nullable":true}},"required":["a"]}`,
			`{"type":"object","properties":{"e":{"type":"string","format":"enum","enum":["EAST","WEST"]},"n":{"type":"integer","format":"int64","minimum":0,"maximum":9},"l":{"type":"array","items":{"type":"number"},"minItems":"1"},"u":{"anyOf":[{"type":"string"},{"type":"object","properties":{"x":{"type":"boolean"}}}]}}}`,
			`{"type":"object","properties":{"d":{"type":"string","title":"T","description":"D","default":"x","example":"y","pattern":"^a","minLength":1,"maxLength":3}},"propertyOrdering":["d"]}`,
		},
		OpenAITools: {
			`{"type":"object","properties":{}}`,
			`{"type":"object","$defs":{"X":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/X"},"b":{"type":["string","null"]},"l":{"type":"array","items":{}}},"additionalProperties":false}`,
		},
	} {
		for _, p := range params {
			model := "gpt-4.1"
			if vendor == GeminiTools {
				model = "gemini-2.5-flash"
			}
			if got := ToolProblems(vendor, openaiBody(model, "f", "Does f.", p)); len(got) > 0 {
				t.Errorf("%s refuses %s:\n%s", vendor, p, strings.Join(got, "\n"))
			}
		}
	}
	// A function without parameters takes none, on both.
	for _, model := range []string{"gpt-4.1", "gemini-2.5-flash"} {
		if got := ToolProblems(ToolDialectFor(providers.ChatCompletions, model), openaiBody(model, "f", "Does f.", "")); len(got) > 0 {
			t.Errorf("%s refuses a function without parameters: %v", model, got)
		}
	}
}

// Over HTTP the fake answers a refused request as the provider does,
// before any scripted turn is spent: Gemini with its error object and
// status, OpenAI with its error type, code and param.
func TestServerRefusesToolsAsTheProviderDoes(t *testing.T) {
	s := New(t)
	s.Script(Turn{Text: "ok"})
	post := func(body []byte) (int, []byte) {
		t.Helper()
		resp, err := http.Post(s.URL()+"/v1/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, raw
	}
	status, raw := post(openaiBody("gemini-2.5-flash", "f", "Does f.", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`))
	var google []struct {
		Error struct {
			Code            int
			Message, Status string
		}
	}
	json.Unmarshal(raw, &google)
	if status != 400 || len(google) != 1 || google[0].Error.Status != "INVALID_ARGUMENT" || google[0].Error.Code != 400 || !strings.Contains(google[0].Error.Message, `Unknown name "additionalProperties"`) {
		t.Errorf("Gemini refusal %d %s", status, raw)
	}
	var v map[string]any
	status, raw = post(openaiBody("gpt-4.1", "f", "Does f.", `{"type":"object"}`))
	json.Unmarshal(raw, &v)
	e, _ := v["error"].(map[string]any)
	if status != 400 || e["type"] != "invalid_request_error" || e["code"] != "invalid_function_parameters" || !strings.Contains(e["message"].(string), "object schema missing properties") {
		t.Errorf("OpenAI refusal %d %v", status, v)
	}
	if s.Pending() != 1 {
		t.Errorf("a refused request spent a scripted turn")
	}
	if status, _ := post(openaiBody("gpt-4.1", "f", "Does f.", `{"type":"object","properties":{}}`)); status != 200 {
		t.Errorf("a valid request: status %d", status)
	}
}
