package model

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/model/modeltest"
)

// sameJSON reports whether a and b are the same JSON value, key order aside.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, a)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("want is not JSON: %v\n%s", err, b)
	}
	return reflect.DeepEqual(va, vb)
}

// geminiProblems is what the fake model, playing Gemini, refuses in a
// request offering def.
func geminiProblems(def ToolDef) []string {
	body, _ := json.Marshal(map[string]any{"model": "gemini-2.5-flash", "tools": openaiTools([]ToolDef{def})})
	return modeltest.ToolProblems(modeltest.GeminiTools, body)
}

// Each rule of Gemini's schema subset, and what the translation keeps of
// the meaning. Every output is also checked against the fake's Gemini
// rules, and every input refused by them (the rule is needed).
func TestGeminiSchemaTranslation(t *testing.T) {
	cases := []struct {
		name, in, want string
		notes          []string // in the tool's description
		// taken: Gemini takes the input too; the translation is for the
		// model's sake (or Gemini's documented rules, where its answers
		// are not known).
		taken bool
	}{
		{"$schema and additionalProperties false are left out",
			`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","additionalProperties":false,"properties":{"path":{"type":"string"}},"required":["path"]}`,
			`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`, nil, false},
		{"a $ref is inlined, its referrer's description kept",
			`{"type":"object","$defs":{"Pt":{"type":"object","description":"a point","properties":{"x":{"type":"number"}}}},"properties":{"at":{"$ref":"#/$defs/Pt","description":"where"}}}`,
			`{"type":"object","properties":{"at":{"type":"object","description":"where","properties":{"x":{"type":"number"}}}}}`, nil, false},
		{"a draft-7 definitions $ref is inlined",
			`{"type":"object","definitions":{"Id":{"type":"string"}},"properties":{"id":{"$ref":"#/definitions/Id"}}}`,
			`{"type":"object","properties":{"id":{"type":"string"}}}`, nil, false},
		{"a recursive $ref is cut to an object without properties",
			`{"type":"object","$defs":{"Node":{"type":"object","properties":{"name":{"type":"string"},"child":{"$ref":"#/$defs/Node"}}}},"properties":{"tree":{"$ref":"#/$defs/Node"}}}`,
			`{"type":"object","properties":{"tree":{"type":"object","properties":{"name":{"type":"string"},"child":{"type":"object","description":"(the same shape as Node, nested again)"}}}}}`, nil, false},
		{"a string const is a one-value enum",
			`{"type":"object","properties":{"kind":{"type":"string","const":"page"}}}`,
			`{"type":"object","properties":{"kind":{"type":"string","enum":["page"]}}}`, nil, false},
		{"a const without a type is typed by its value",
			`{"type":"object","properties":{"kind":{"const":"page"}}}`,
			`{"type":"object","properties":{"kind":{"type":"string","enum":["page"]}}}`, nil, false},
		{"a number const is said in words",
			`{"type":"object","properties":{"v":{"type":"integer","const":2}}}`,
			`{"type":"object","properties":{"v":{"type":"integer","description":"(must be 2)"}}}`, nil, false},
		{"a type list with null is a nullable type",
			`{"type":"object","properties":{"link":{"type":["object","null"]},"n":{"type":["null","integer"],"description":"count"}}}`,
			`{"type":"object","properties":{"link":{"type":"object","nullable":true},"n":{"type":"integer","description":"count","nullable":true}}}`, nil, false},
		{"a type list of two types is anyOf, each with its own keywords",
			`{"type":"object","properties":{"v":{"type":["string","number"],"description":"a value","maxLength":5,"minimum":0}}}`,
			`{"type":"object","properties":{"v":{"description":"a value","anyOf":[{"type":"string","maxLength":5},{"type":"number","minimum":0}]}}}`, nil, false},
		{"anyOf with a null branch is nullable, one branch left is the schema",
			`{"type":"object","properties":{"s":{"anyOf":[{"type":"string"},{"type":"null"}],"description":"name"}}}`,
			`{"type":"object","properties":{"s":{"type":"string","description":"name","nullable":true}}}`, nil, false},
		{"oneOf is anyOf",
			`{"type":"object","properties":{"at":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`,
			`{"type":"object","properties":{"at":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`, nil, false},
		{"anyOf of consts is one enum",
			`{"type":"object","properties":{"mode":{"anyOf":[{"const":"a","description":"first"},{"const":"b"}]}}}`,
			`{"type":"object","properties":{"mode":{"type":"string","enum":["a","b"]}}}`, nil, false},
		{"anyOf of number consts is said in words",
			`{"type":"object","properties":{"dir":{"anyOf":[{"type":"number","const":1},{"type":"number","const":-1}]}}}`,
			`{"type":"object","properties":{"dir":{"type":"integer","description":"(one of: 1, -1)"}}}`, nil, false},
		{"the same branch twice is written once, a union in a union joins it",
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"string"},{"anyOf":[{"type":"boolean"},{"type":"integer"}]}]}}}`,
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"boolean"},{"type":"integer"}]}}}`, nil, true},
		{"keywords beside anyOf hold in every branch",
			`{"type":"object","properties":{"p":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}}}`,
			`{"type":"object","properties":{"p":{"anyOf":[{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["b"]}]}}}`, nil, false},
		{"allOf is merged",
			`{"type":"object","properties":{"p":{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"integer"}}}]}}}`,
			`{"type":"object","properties":{"p":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}}}`, nil, false},
		{"a string format other than enum and date-time is said in words",
			`{"type":"object","properties":{"id":{"type":"string","format":"uuid"},"at":{"type":"string","format":"date-time"}}}`,
			`{"type":"object","properties":{"id":{"type":"string","description":"(format: uuid)"},"at":{"type":"string","format":"date-time"}}}`, nil, false},
		{"an integer's exclusive bounds are the next integers",
			`{"type":"object","properties":{"n":{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":10}}}`,
			`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":9}}}`, nil, false},
		{"a number's exclusive bound is kept inclusive and said in words",
			`{"type":"object","properties":{"x":{"type":"number","exclusiveMinimum":0.5}}}`,
			`{"type":"object","properties":{"x":{"type":"number","minimum":0.5,"description":"(greater than 0.5)"}}}`, nil, false},
		{"a draft-4 boolean exclusiveMinimum excludes the minimum",
			`{"type":"object","properties":{"n":{"type":"integer","minimum":0,"exclusiveMinimum":true}}}`,
			`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`, nil, false},
		{"an enum of numbers is said in words",
			`{"type":"object","properties":{"level":{"type":"integer","enum":[1,2,3]}}}`,
			`{"type":"object","properties":{"level":{"type":"integer","description":"(one of: 1, 2, 3)"}}}`, nil, false},
		{"null in an enum is nullable",
			`{"type":"object","properties":{"c":{"type":"string","enum":["red",null]}}}`,
			`{"type":"object","properties":{"c":{"type":"string","nullable":true,"enum":["red"]}}}`, nil, false},
		{"empty properties are left out, and required names only declared properties",
			`{"type":"object","properties":{"opts":{"type":"object","properties":{},"required":["x"]}},"required":["opts","ghost"]}`,
			`{"type":"object","properties":{"opts":{"type":"object"}},"required":["opts"]}`, nil, false},
		{"a tool without arguments has no properties",
			`{"type":"object","properties":{}}`,
			`{"type":"object"}`, nil, false},
		{"the values of a map are said in words",
			`{"type":"object","properties":{"headers":{"type":"object","additionalProperties":{"type":"string"}}}}`,
			`{"type":"object","properties":{"headers":{"type":"object","description":"(keys of your choice, each value a string)"}}}`, nil, false},
		{"propertyNames and patternProperties are said in words",
			`{"type":"object","properties":{"env":{"type":"object","propertyNames":{"pattern":"^[A-Z_]+$"},"patternProperties":{"^X":{"type":"integer"}}}}}`,
			`{"type":"object","properties":{"env":{"type":"object","description":"(keys matching ^X, each value an integer; key names match ^[A-Z_]+$)"}}}`, nil, false},
		{"a property of any value cannot be declared: the tool's description names it",
			`{"type":"object","properties":{"value":{"description":"anything"},"key":{"type":"string"}},"required":["key","value"]}`,
			`{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}`,
			[]string{`"value" (any JSON value, required) is not declared here`}, true},
		{"an array without items cannot be declared",
			`{"type":"object","properties":{"list":{"type":"array"}}}`,
			`{"type":"object"}`,
			[]string{`"list" (a list of any values) is not declared here`}, false},
		{"a default is said in words",
			`{"type":"object","properties":{"n":{"type":"number","default":10,"description":"how many"}}}`,
			`{"type":"object","properties":{"n":{"type":"number","description":"how many (default: 10)"}}}`, nil, true},
		{"a tuple is any of its item schemas, its order said",
			`{"type":"object","properties":{"pt":{"type":"array","prefixItems":[{"type":"number"},{"type":"string"}]}}}`,
			`{"type":"object","properties":{"pt":{"type":"array","items":{"anyOf":[{"type":"number"},{"type":"string"}]},"description":"(in this order: a number, a string)"}}}`, nil, false},
		{"a title with no description is the description",
			`{"type":"object","properties":{"q":{"type":"string","title":"Query","examples":["x"],"minLength":1}}}`,
			`{"type":"object","properties":{"q":{"type":"string","description":"Query","minLength":1}}}`, nil, true},
		{"properties without a type make an object",
			`{"type":"object","properties":{"data":{"properties":{"id":{"type":"string"}},"required":["id"]}}}`,
			`{"type":"object","properties":{"data":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}}`, nil, true},
		{"a root $ref is its target",
			`{"$ref":"#/$defs/Args","$defs":{"Args":{"type":"object","properties":{"a":{"type":"boolean"}}}}}`,
			`{"type":"object","properties":{"a":{"type":"boolean"}}}`, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := ToolDef{Name: "s__t", Description: "Tool.", Schema: json.RawMessage(c.in)}
			if p := geminiProblems(in); len(p) == 0 && !c.taken {
				t.Errorf("Gemini takes the input as it is, so the case tests no rule: %s", c.in)
			}
			got := GeminiToolRules.Translate(in)
			if !sameJSON(t, got.Schema, []byte(c.want)) {
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
			if p := geminiProblems(got); len(p) > 0 {
				t.Errorf("Gemini refuses the translation %s:\n%s", got.Schema, strings.Join(p, "\n"))
			}
		})
	}
}

// A schema that references itself through a list, or fans out: the
// translation ends, within the budget, and Gemini takes it.
func TestGeminiSchemaTranslationEnds(t *testing.T) {
	var fan strings.Builder
	fan.WriteString(`{"type":"object","$defs":{`)
	for i := 0; i < 12; i++ {
		if i > 0 {
			fan.WriteString(",")
		}
		next := `{"type":"string"}`
		if i < 11 {
			next = `{"anyOf":[{"$ref":"#/$defs/d` + strconv.Itoa(i+1) + `"},{"$ref":"#/$defs/d` + strconv.Itoa(i+1) + `"}]}`
		}
		fan.WriteString(`"d` + strconv.Itoa(i) + `":{"type":"object","properties":{"a":` + next + `,"b":` + next + `}}`)
	}
	fan.WriteString(`},"properties":{"root":{"$ref":"#/$defs/d0"}}}`)
	big := `{"type":"object","$defs":{"Big":{"type":"object","description":"` + strings.Repeat("x", 200<<10) + `","properties":{"a":{"type":"string"}}}},"properties":{`
	for i := 0; i < 2000; i++ {
		if i > 0 {
			big += ","
		}
		big += `"p` + strconv.Itoa(i) + `":{"$ref":"#/$defs/Big"}`
	}
	big += "}}"
	for name, schema := range map[string]string{
		"a large definition referenced 2000 times": big,
		"a list of itself":                         `{"type":"object","$defs":{"T":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/T"}}}}},"properties":{"t":{"$ref":"#/$defs/T"}}}`,
		"the root itself":                          `{"type":"object","properties":{"name":{"type":"string"},"sub":{"$ref":"#"}}}`,
		"a fan of 2^12":                            fan.String(),
	} {
		t.Run(name, func(t *testing.T) {
			got := GeminiToolRules.Translate(ToolDef{Name: "s__t", Schema: json.RawMessage(schema)})
			if p := geminiProblems(got); len(p) > 0 {
				t.Errorf("Gemini refuses %s:\n%s", got.Schema, strings.Join(p, "\n"))
			}
			if max := 4<<20 + 4*len(schema); len(got.Schema) > max {
				t.Errorf("the translation is %d bytes, more than %d", len(got.Schema), max)
			}
		})
	}
}
