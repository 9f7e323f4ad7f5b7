package tools

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Every built-in's schema is derived from its argument struct: an object
// that allows nothing else, the same bytes every time (the tools block of
// a request must stay byte-identical across turns for prompt caching).
func TestBuiltinSchemasAreStrictObjectsAndStable(t *testing.T) {
	for _, b := range Builtins() {
		var s struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		d := b.Def()
		if err := json.Unmarshal(d.Schema, &s); err != nil || s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: schema %s, want an object with additionalProperties false (%v)", d.Name, d.Schema, err)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: required %q is no property: %s", d.Name, r, d.Schema)
			}
		}
		for name, p := range s.Properties {
			var prop struct{ Type, Description string }
			if json.Unmarshal(p, &prop) != nil || prop.Type == "" || prop.Description == "" {
				t.Errorf("%s: property %s = %s, want one plain type and a description", d.Name, name, p)
			}
		}
	}
	if a, b := argsSchema[writeFileArgs](), argsSchema[writeFileArgs](); !bytes.Equal(a, b) {
		t.Errorf("argsSchema differs between two calls:\n%s\n%s", a, b)
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
