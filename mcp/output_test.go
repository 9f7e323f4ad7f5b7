package mcp

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestResolveOutput(t *testing.T) {
	tests := []struct {
		name   string
		schema any
		err    string // "" for a usable schema
	}{
		{"no schema", nil, ""},
		{"draft 2020-12, the default", map[string]any{"type": "object"}, ""},
		{"draft-07, as zod-to-json-schema writes it", map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}, ""},
		{"another draft", map[string]any{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}, "only draft-07 and draft 2020-12"},
		{"a remote reference", map[string]any{"$ref": "https://example.com/s.json"}, "remote"},
		{"not a schema", map[string]any{"type": 7}, "not a JSON schema"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := resolveOutput(&sdk.Tool{Name: "t", OutputSchema: tc.schema})
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("err = %v; want one containing %q", err, tc.err)
			}
		})
	}
}

func TestConvertToolsWarnsOfAnUnusableOutputSchema(t *testing.T) {
	defs, warnings := convertTools([]*sdk.Tool{{Name: "t", OutputSchema: map[string]any{"$schema": "http://json-schema.org/draft-04/schema#"}}}, 100, 10)
	if len(defs) != 1 || defs[0].output != nil || len(warnings) != 1 || !strings.Contains(warnings[0], `tool "t": its outputSchema cannot be used`) {
		t.Errorf("defs %+v, warnings %q; want the tool kept, unchecked, with a warning", defs, warnings)
	}
}
