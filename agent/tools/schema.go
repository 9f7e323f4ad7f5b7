package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentls/agentls/agent/model"
	"github.com/google/jsonschema-go/jsonschema"
)

// newBuiltin is the built-in name whose arguments are the struct A: A is
// the one statement of them. The schema the model is offered is derived
// from A once (argsSchema), the arguments are decoded into A strictly (a
// misspelled field comes back to the model as an error naming it rather
// than being ignored), and the error says what the schema expects.
func newBuiltin[A any](b builtin, name, description string, run func(ctx context.Context, env *Env, call Call, a *A) (string, error)) *builtin {
	b.def = model.ToolDef{Name: name, Description: description, Schema: argsSchema[A]()}
	expected := ExpectedArgs(name, b.def.Schema)
	b.run = func(ctx context.Context, env *Env, call Call, in json.RawMessage) (string, error) {
		var a A
		if len(bytes.TrimSpace(in)) == 0 {
			in = json.RawMessage("{}")
		}
		dec := json.NewDecoder(bytes.NewReader(in))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			return "", fmt.Errorf("%s: bad arguments: %v; %s", name, err, expected)
		}
		return run(ctx, env, call, &a)
	}
	return &b
}

// argsSchema is the JSON Schema of the argument struct A
// (github.com/google/jsonschema-go): an object whose properties are A's
// fields in their order, required unless omitempty. The tool's description
// says what each argument means, so the properties carry no descriptions
// of their own, and the schema does not say "additionalProperties": false:
// a field it does not name is refused when the call is decoded, with the
// expected fields named (see newBuiltin). Both cost bytes on every request
// and told the model nothing its description does not. A pointer field
// (present or not, as write_file's content) is shown as its plain type: a
// null reads as absent. The bytes are the same on every call, so the tools
// block of a request, and the provider's prompt cache, stay byte-identical.
func argsSchema[A any]() json.RawMessage {
	s, err := jsonschema.For[A](nil)
	if err != nil {
		panic(fmt.Sprintf("tools: the arguments of a built-in have no JSON Schema: %v", err))
	}
	s.AdditionalProperties = nil
	for _, p := range s.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools: encode a built-in's JSON Schema: %v", err))
	}
	return b
}

// ExpectedArgs says in one line what a tool's input schema asks for, for an
// error the model reads when its arguments were not a JSON object. Property
// names come from the schema the model was already offered; the line is
// capped so a server's huge schema cannot flood the result.
func ExpectedArgs(tool string, schema json.RawMessage) string {
	var s struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(schema, &s) // an unreadable schema reads as "no fields"
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	var optional []string
	for p := range s.Properties {
		if !required[p] {
			optional = append(optional, p)
		}
	}
	sort.Strings(optional)
	req := append([]string(nil), s.Required...)
	sort.Strings(req)
	quote := func(names []string) string {
		q := make([]string, len(names))
		for i, n := range names {
			q[i] = fmt.Sprintf("%q", n)
		}
		return strings.Join(q, ", ")
	}
	line := tool + " expects a JSON object with "
	if len(req) == 0 {
		line += "no required fields"
	} else {
		line += "required fields: " + quote(req)
	}
	if len(optional) > 0 {
		line += "; optional: " + quote(optional)
	}
	return capText(line, 1000)
}
